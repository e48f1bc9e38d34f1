import { getMetadataArgsStorage } from 'typeorm';
import { Transcription } from '../transcriptions/transcription.entity';
import {
  MODEL_TIER_CATALOGUE,
  MODEL_TIERS,
  MODEL_TIERS_BY_QUEUE_PRIORITY,
  tiersInUsageBucket,
} from './model-tier-catalogue';

describe('model tier catalogue', () => {
  it('lists the same tiers as the database check constraint on transcriptions.model', () => {
    const check = getMetadataArgsStorage().checks.find(
      (entry) => entry.target === Transcription && entry.name === 'chk_transcriptions_model',
    );
    const listed = [...(check?.expression ?? '').matchAll(/'([a-z_]+)'/g)].map((match) => match[1]);
    expect(listed.sort()).toEqual([...MODEL_TIERS].sort());
  });

  it('puts every tier in exactly one usage column', () => {
    const standard = tiersInUsageBucket('standard');
    const premium = tiersInUsageBucket('premium');
    expect([...standard, ...premium].sort()).toEqual([...MODEL_TIERS].sort());
    expect(standard).toEqual(['standard']);
  });

  it('orders the queue by a distinct priority per tier, premium_jade first and standard last', () => {
    const priorities = MODEL_TIERS.map((tier) => MODEL_TIER_CATALOGUE[tier].queuePriority);
    expect(new Set(priorities).size).toBe(MODEL_TIERS.length);
    expect(MODEL_TIERS_BY_QUEUE_PRIORITY).toEqual(['premium_jade', 'premium', 'standard']);
  });
});
