import { JobProgress } from '../logic/job-progress';

export function StatusBadge({ progress }: { progress: JobProgress }) {
  return (
    <span className="status">
      <span className={`badge badge-${progress.status}`}>{progress.status}</span>
      {progress.status === 'processing' || progress.status === 'queued' ? (
        <progress max={100} value={progress.progress} aria-label={`Progress ${progress.progress}%`}>
          {progress.progress}%
        </progress>
      ) : null}
    </span>
  );
}
