import { describe, expect, it } from 'vitest';
import { progressReducer, ProgressState } from './job-progress';

const frame = (id: string, status: string, progress: number) => ({
  type: 'frame' as const,
  id,
  data: JSON.stringify({ status, progress }),
});

describe('progressReducer', () => {
  it('takes the list snapshot, then the live frames', () => {
    let state: ProgressState = {};
    state = progressReducer(state, { type: 'known', id: 'a', progress: { status: 'queued', progress: 0 } });
    state = progressReducer(state, frame('a', 'processing', 40));
    state = progressReducer(state, frame('a', 'completed', 100));
    expect(state.a).toEqual({ status: 'completed', progress: 100 });
  });
  it('never goes backwards: replayed frames and stale snapshots are ignored', () => {
    let state: ProgressState = { a: { status: 'processing', progress: 60 } };
    state = progressReducer(state, frame('a', 'processing', 40));
    state = progressReducer(state, frame('a', 'queued', 0));
    state = progressReducer(state, {
      type: 'known',
      id: 'a',
      progress: { status: 'processing', progress: 10 },
    });
    expect(state.a).toEqual({ status: 'processing', progress: 60 });
    state = progressReducer(state, frame('a', 'failed', 60));
    state = progressReducer(state, frame('a', 'processing', 90));
    expect(state.a.status).toBe('failed');
  });
  it('ignores malformed frames and keeps the same state object', () => {
    const state: ProgressState = { a: { status: 'queued', progress: 0 } };
    expect(progressReducer(state, { type: 'frame', id: 'a', data: 'not json' })).toBe(state);
    expect(progressReducer(state, { type: 'frame', id: 'a', data: '{"status":"weird","progress":1}' })).toBe(
      state,
    );
    expect(progressReducer(state, { type: 'frame', id: 'a', data: '{"status":"processing"}' })).toBe(state);
  });
  it('clamps progress to 0..100', () => {
    expect(progressReducer({}, frame('b', 'processing', 250)).b.progress).toBe(100);
  });
});
