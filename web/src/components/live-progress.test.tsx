import { act, cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionClient } from '../api/session-client';
import { ClientContext } from '../session-context';
import { useLiveProgress } from './live-progress';

/** The browser's EventSource as far as the hook uses it: the test plays the server's side. */
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  close(): void {
    this.readyState = FakeEventSource.CLOSED;
  }
  /** What a browser does when the answer is not an event stream (a 401): it gives up for good. */
  refuse(): void {
    this.readyState = FakeEventSource.CLOSED;
    this.onerror?.();
  }
}

function Jobs({ jobs }: { jobs: { id: string; status: 'queued'; progress: number }[] }) {
  const live = useLiveProgress(jobs);
  return <p>{jobs.map((job) => `${job.id}:${live[job.id]?.status ?? '?'}`).join(' ')}</p>;
}

describe('useLiveProgress', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeEventSource.opened = [];
    vi.stubGlobal('EventSource', FakeEventSource);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('refreshes the session and opens a refused stream again, waiting longer each time it is refused', async () => {
    const client = new SessionClient(async () => new Response('{}', { status: 401 }));
    const refresh = vi.spyOn(client, 'refresh').mockResolvedValue(null);
    render(
      <ClientContext.Provider value={client}>
        <Jobs jobs={[{ id: 'a', status: 'queued', progress: 0 }]} />
      </ClientContext.Provider>,
    );
    expect(FakeEventSource.opened.map((source) => source.url)).toEqual(['/v1/transcriptions/a/events']);

    act(() => FakeEventSource.opened[0].refuse());
    await act(() => vi.advanceTimersByTimeAsync(4_999));
    expect(FakeEventSource.opened).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(FakeEventSource.opened).toHaveLength(2);

    act(() => FakeEventSource.opened[1].refuse());
    await act(() => vi.advanceTimersByTimeAsync(9_999));
    expect(FakeEventSource.opened).toHaveLength(2);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(FakeEventSource.opened).toHaveLength(3);
  });

  it('does not reopen a stream that ended with the job, nor after the page is left', async () => {
    const client = new SessionClient(async () => new Response('{}', { status: 401 }));
    vi.spyOn(client, 'refresh').mockResolvedValue(null);
    const { unmount } = render(
      <ClientContext.Provider value={client}>
        <Jobs jobs={[{ id: 'a', status: 'queued', progress: 0 }]} />
      </ClientContext.Provider>,
    );
    const first = FakeEventSource.opened[0];
    act(() => first.onmessage?.({ data: JSON.stringify({ id: 'a', status: 'completed', progress: 100 }) }));
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    unmount();
    await act(() => vi.advanceTimersByTimeAsync(120_000));
    expect(FakeEventSource.opened).toHaveLength(1);
  });
});
