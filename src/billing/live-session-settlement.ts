import { costMicro } from './pricing';

/**
 * How a realtime session ended, as far as money goes. Every path that ends one maps to exactly one of these:
 * - `closed`: it ended as sessions end: the client closed it, or the server did for a limit (idle, maximum
 *   length, balance or free transcription spent, input buffer, message size, recognition lagging) or a drain;
 * - `failed`: the server failed it (recognition failed, an unexpected error in the session);
 * - `lost`: its process stopped renewing it (killed); the reconciler settles it from what the lease recorded;
 * - `deleted`: its transcription was deleted while it was open.
 */
export type LiveSessionEnd = 'closed' | 'failed' | 'lost' | 'deleted';

/** What the session took and gave. */
export interface LiveSessionUsage {
  /** Audio received (samples / 16 kHz). */
  receivedSeconds: number;
  /** Whether recognised text reached the client: a partial hypothesis or a final transcript. */
  delivered: boolean;
}

/** What the session is billed under. */
export interface LiveSessionTerms {
  billingEnabled: boolean;
  usesFreeTranscription: boolean;
  pricePerMinuteMicro: number;
  /**
   * What the session holds against the balance (its reservation); null for a session opened before
   * reservations existed, which is then bounded by the balance alone.
   */
  reservedMicro: number | null;
  /** The workspace's balance now (locked). */
  balanceMicro: number;
}

export type LiveSessionSettlement =
  /**
   * The session completes: `costMicro` is charged (0 on a free transcription, which stays used, or with billing
   * off); `uncoveredMicro` is what its audio cost beyond its reservation or the balance, left unbilled.
   */
  | { kind: 'charge'; costMicro: number; uncoveredMicro: number }
  /** Nothing is charged and a reserved free transcription is given back (failed, or deleted, unbilled). */
  | { kind: 'release' };

/**
 * Whether a session's end pays for its audio: whatever delivered text does, and a session that ended as
 * sessions end pays for what it received even when it recognised nothing (silence is still audio received and
 * decoded, as for a file job). Only a server-side failure, a lost process or a deletion before any text reached
 * the client is unbilled (the specification: failed jobs are not billed; deleting stops a job unbilled).
 */
export function paysForAudio(end: LiveSessionEnd, delivered: boolean): boolean {
  return delivered || end === 'closed';
}

/**
 * The one settlement rule of realtime sessions, which every end path applies (docs/billing.md, "Realtime
 * sessions"): the audio received, by the started second at the tier's price as a file job's decoded audio,
 * capped by what the session reserved and by the balance (so the balance never goes negative and a session
 * never spends another's reservation). A session that pays completes; one that does not is failed (or removed,
 * when deleted) and gives its free transcription back.
 */
export function settleLiveSession(
  end: LiveSessionEnd,
  usage: LiveSessionUsage,
  terms: LiveSessionTerms,
): LiveSessionSettlement {
  if (!paysForAudio(end, usage.delivered)) return { kind: 'release' };
  if (!terms.billingEnabled || terms.usesFreeTranscription) {
    return { kind: 'charge', costMicro: 0, uncoveredMicro: 0 };
  }
  const full = costMicro(usage.receivedSeconds, terms.pricePerMinuteMicro);
  const cap = Math.max(0, Math.min(terms.reservedMicro ?? Number.POSITIVE_INFINITY, terms.balanceMicro));
  const charged = Math.min(full, cap);
  return { kind: 'charge', costMicro: charged, uncoveredMicro: full - charged };
}

/**
 * The most audio (whole seconds) a reservation pays for at a tier's price: the largest `s` whose cost (the
 * same rounding as the charge) is within `reservedMicro`.
 */
export function secondsCovered(reservedMicro: number, pricePerMinuteMicro: number): number {
  if (pricePerMinuteMicro <= 0) return Number.POSITIVE_INFINITY;
  let seconds = Math.max(0, Math.floor((reservedMicro * 60) / pricePerMinuteMicro));
  // The charge rounds to whole micro-EUR: at a price that is no multiple of 60, a few more seconds may fit.
  while (costMicro(seconds + 1, pricePerMinuteMicro) <= reservedMicro) seconds++;
  while (seconds > 0 && costMicro(seconds, pricePerMinuteMicro) > reservedMicro) seconds--;
  return seconds;
}
