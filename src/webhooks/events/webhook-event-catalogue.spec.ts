import { dedupeKeyOf } from './webhook-event-catalogue';

describe('dedupeKeyOf (what makes an event happen once)', () => {
  const workspaceId = '6f1c2a4e-0000-4000-8000-000000000001';
  const transcriptionId = '6f1c2a4e-0000-4000-8000-000000000002';

  it('keys transcription events by transcription: once per transcription and event type', () => {
    const completed = dedupeKeyOf({
      type: 'transcription.completed',
      workspaceId,
      data: {
        id: transcriptionId,
        model: 'standard',
        status: 'completed',
        duration: 11,
        wordCount: 22,
        speakerCount: 1,
        cost: 0.00055,
        completedAt: '2026-01-31T12:00:00.000Z',
        metadata: {},
      },
    });
    const failed = dedupeKeyOf({
      type: 'transcription.failed',
      workspaceId,
      data: {
        id: transcriptionId,
        model: 'standard',
        status: 'failed',
        errorMessage: 'NO_SPOKEN_AUDIO',
        failedAt: '2026-01-31T12:00:00.000Z',
        metadata: {},
      },
    });
    expect(completed).toBe(`transcription.completed:${transcriptionId}`);
    expect(failed).toBe(`transcription.failed:${transcriptionId}`);
  });

  it('keys balance.low by the ledger entry that crossed the threshold: once per crossing', () => {
    const data = { balance: 0.9, threshold: 1, currency: 'EUR' } as const;
    const first = dedupeKeyOf({ type: 'balance.low', workspaceId, ledgerEntryId: 'entry-1', data });
    const second = dedupeKeyOf({ type: 'balance.low', workspaceId, ledgerEntryId: 'entry-2', data });
    expect(first).toBe(`balance.low:${workspaceId}:entry-1`);
    expect(second).not.toBe(first);
  });
});
