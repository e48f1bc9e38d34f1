import { useEffect, useReducer } from 'react';
import { isTerminal, JobProgress, progressReducer } from '../logic/job-progress';

/**
 * Live status of the given jobs: one EventSource per unfinished job on /v1/transcriptions/{id}/events (the
 * same-origin stt_session cookie authenticates it, an EventSource cannot send a header). Closed once the job
 * is terminal; EventSource reconnects by itself after a dropped connection (Last-Event-ID).
 */
export function useLiveProgress(
  jobs: readonly { id: string; status: JobProgress['status']; progress: number }[],
) {
  const [state, dispatch] = useReducer(progressReducer, {});
  useEffect(() => {
    for (const job of jobs) dispatch({ type: 'known', id: job.id, progress: job });
  }, [jobs]);
  const open = jobs.filter((job) => !isTerminal((state[job.id] ?? job).status)).map((job) => job.id);
  const key = open.join(',');
  useEffect(() => {
    if (key === '') return;
    const sources = key.split(',').map((id) => {
      const source = new EventSource(`/v1/transcriptions/${id}/events`);
      source.onmessage = (event: MessageEvent<string>) => {
        dispatch({ type: 'frame', id, data: event.data });
        const frame = JSON.parse(event.data) as JobProgress;
        if (isTerminal(frame.status)) source.close();
      };
      return source;
    });
    return () => sources.forEach((source) => source.close());
  }, [key]);
  return state;
}
