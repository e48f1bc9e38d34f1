import { Injectable } from '@nestjs/common';
import { ProblemException } from '../common/problem/problem.exception';
import type { ModelTier } from '../common/model-tier-catalogue';
import { describeLanguages, EngineTiers } from '../engine/tiers/engine-tiers';

/**
 * Refuses, at upload, a language the tier's recogniser cannot serve (e.g. German on a PocketSphinx tier):
 * the caller gets 422 at once instead of a queued, billed-then-refunded job that fails with
 * UNSUPPORTED_LANGUAGE. `auto` is always accepted; what a tier serves comes from the boot-time resolution.
 */
@Injectable()
export class TierLanguagePolicy {
  constructor(private readonly tiers: EngineTiers) {}

  assertServes(tier: ModelTier, language: string): void {
    if (this.tiers.serves(tier, language)) return;
    throw ProblemException.field(
      'language',
      `the ${tier} tier of this deployment serves ${describeLanguages(this.tiers.get(tier).languages)}; ` +
        `got '${language}'`,
    );
  }
}
