import { useEffect, useReducer } from 'react';
import { isTerminal, JobProgress, progressReducer } from '../logic/job-progress';
import { useClient } from '../session-context';

/**
 * Wait before opening again a stream the server refused (401 after an expired cookie, a proxy's 5xx during a
 * deployment): 5 s, doubling while it keeps being refused, at most a minute.
 */
const REOPEN_FIRST_MS = 5_000;
const REOPEN_MAX_MS = 60_000;

/**
 * Live status of the given jobs: one EventSource per unfinished job on /v1/transcriptions/{id}/events (the
 * same-origin stt_session cookie authenticates it, an EventSource cannot send a header). Closed once the job
 * is terminal. EventSource reconnects by itself after a dropped connection (Last-Event-ID), but gives up for
 * good on an answer that is not a stream (401 once the cookie expired, a proxy's 502): then the session is
 * refreshed (which renews the cookie) and the stream opened again.
 */
export function useLiveProgress(
  jobs: readonly { id: string; status: JobProgress['status']; progress: number }[],
) {
  const client = useClient();
  const [state, dispatch] = useReducer(progressReducer, {});
  useEffect(() => {
    for (const job of jobs) dispatch({ type: 'known', id: job.id, progress: job });
  }, [jobs]);
  const open = jobs.filter((job) => !isTerminal((state[job.id] ?? job).status)).map((job) => job.id);
  const key = open.join(',');
  useEffect(() => {
    if (key === '') return;
    let disposed = false;
    const sources = new Map<string, EventSource>();
    const reopenTimers = new Set<ReturnType<typeof setTimeout>>();
    const connect = (id: string, wait = REOPEN_FIRST_MS): void => {
      const source = new EventSource(`/v1/transcriptions/${id}/events`);
      sources.set(id, source);
      source.onopen = () => {
        wait = REOPEN_FIRST_MS;
      };
      source.onmessage = (event: MessageEvent<string>) => {
        dispatch({ type: 'frame', id, data: event.data });
        const frame = JSON.parse(event.data) as JobProgress;
        if (isTerminal(frame.status)) source.close();
      };
      source.onerror = () => {
        if (source.readyState !== EventSource.CLOSED || disposed) return;
        const timer = setTimeout(() => {
          reopenTimers.delete(timer);
          void client.refresh().then(() => !disposed && connect(id, Math.min(wait * 2, REOPEN_MAX_MS)));
        }, wait);
        reopenTimers.add(timer);
      };
    };
    key.split(',').forEach((id) => connect(id));
    return () => {
      disposed = true;
      reopenTimers.forEach(clearTimeout);
      sources.forEach((source) => source.close());
    };
  }, [key, client]);
  return state;
}
