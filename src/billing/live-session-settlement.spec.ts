import { costMicro } from './pricing';
import {
  type LiveSessionEnd,
  type LiveSessionTerms,
  paysForAudio,
  secondsCovered,
  settleLiveSession,
} from './live-session-settlement';

/** 0.003 EUR a minute: 50 micro-EUR a started second. */
const STANDARD = 3000;
const paid: LiveSessionTerms = {
  billingEnabled: true,
  usesFreeTranscription: false,
  pricePerMinuteMicro: STANDARD,
  reservedMicro: 10_000,
  balanceMicro: 1_000_000,
};
const ENDS: LiveSessionEnd[] = ['closed', 'failed', 'lost', 'deleted'];

describe('settleLiveSession: who pays for a realtime session', () => {
  it('charges the audio received, by the started second, on every end once text was delivered', () => {
    for (const end of ENDS) {
      expect(settleLiveSession(end, { receivedSeconds: 3.78625, delivered: true }, paid)).toEqual({
        kind: 'charge',
        costMicro: 200,
        uncoveredMicro: 0,
      });
    }
  });

  it('a session closed as sessions close pays for what it received even when nothing was recognised', () => {
    expect(settleLiveSession('closed', { receivedSeconds: 10, delivered: false }, paid)).toEqual({
      kind: 'charge',
      costMicro: 500,
      uncoveredMicro: 0,
    });
    expect(settleLiveSession('closed', { receivedSeconds: 0, delivered: false }, paid)).toEqual({
      kind: 'charge',
      costMicro: 0,
      uncoveredMicro: 0,
    });
  });

  it('a failure, a lost process or a deletion before any text reached the client is unbilled', () => {
    for (const end of ['failed', 'lost', 'deleted'] as const) {
      expect(settleLiveSession(end, { receivedSeconds: 30, delivered: false }, paid)).toEqual({
        kind: 'release',
      });
      expect(paysForAudio(end, false)).toBe(false);
    }
  });

  it('never charges more than the reservation or the balance; the rest is reported uncovered', () => {
    const usage = { receivedSeconds: 12, delivered: true };
    expect(settleLiveSession('closed', usage, { ...paid, reservedMicro: 450 })).toEqual({
      kind: 'charge',
      costMicro: 450,
      uncoveredMicro: 150,
    });
    expect(settleLiveSession('closed', usage, { ...paid, balanceMicro: 100 })).toEqual({
      kind: 'charge',
      costMicro: 100,
      uncoveredMicro: 500,
    });
    expect(settleLiveSession('closed', usage, { ...paid, balanceMicro: -5 })).toMatchObject({ costMicro: 0 });
    // A session opened before reservations: the balance alone bounds it.
    expect(settleLiveSession('closed', usage, { ...paid, reservedMicro: null })).toMatchObject({
      costMicro: 600,
    });
  });

  it('a free transcription, or billing switched off, completes at cost 0 (the free transcription stays used)', () => {
    const usage = { receivedSeconds: 100, delivered: true };
    expect(settleLiveSession('deleted', usage, { ...paid, usesFreeTranscription: true })).toEqual({
      kind: 'charge',
      costMicro: 0,
      uncoveredMicro: 0,
    });
    expect(settleLiveSession('lost', usage, { ...paid, billingEnabled: false })).toEqual({
      kind: 'charge',
      costMicro: 0,
      uncoveredMicro: 0,
    });
    expect(
      settleLiveSession('failed', { ...usage, delivered: false }, { ...paid, usesFreeTranscription: true }),
    ).toEqual({ kind: 'release' });
  });
});

describe('secondsCovered', () => {
  it('is the most whole seconds whose charge fits the reservation, at any price', () => {
    expect(secondsCovered(150, STANDARD)).toBe(3);
    expect(secondsCovered(149, STANDARD)).toBe(2);
    expect(secondsCovered(0, STANDARD)).toBe(0);
    expect(secondsCovered(100, 0)).toBe(Number.POSITIVE_INFINITY);
    for (const price of [3000, 4500, 6000, 1234, 7]) {
      for (const reserved of [1, 49, 50, 75, 999, 10_000]) {
        const seconds = secondsCovered(reserved, price);
        expect(costMicro(seconds, price)).toBeLessThanOrEqual(reserved);
        expect(costMicro(seconds + 1, price)).toBeGreaterThan(reserved);
      }
    }
  });
});
