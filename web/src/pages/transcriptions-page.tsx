import { DragEvent, FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { TranscriptionPage, TranscriptionSummary, Vocabulary } from '../api/types';
import { UploadAnswer, uploadTranscription } from '../api/upload';
import { useLiveProgress } from '../components/live-progress';
import { RequestPanel } from '../components/request-panel';
import { StatusBadge } from '../components/status-badge';
import { TierPicker } from '../components/tier-picker';
import {
  CursorPaging,
  firstPage,
  hasPrevious,
  nextPage,
  pageLoaded,
  previousPage,
} from '../logic/cursor-paging';
import { BASE, navigate } from '../router';
import { useClient } from '../session-context';
import { textField } from '../logic/form-fields';
import { isTerminal } from '../logic/job-progress';
import { formatEur } from '../logic/money';
import { metadataField } from '../logic/playground-fields';
import { PlaygroundRequest } from '../logic/request-code';

/** Speaker-count and text fields of the form, sent as written when filled in (the API checks them). */
const TEXT_FIELDS = [
  'model',
  'language',
  'vocabulary_id',
  'vocabulary',
  'num_speakers',
  'min_speakers',
  'max_speakers',
];

/** The playground: every upload option of the API, then the request as code and the answer as sent. */
function UploadForm({ onUploaded }: { onUploaded: () => void }) {
  const client = useClient();
  const id = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const [vocabularies, setVocabularies] = useState<Vocabulary[]>([]);
  const [last, setLast] = useState<{ request: PlaygroundRequest; answer: UploadAnswer } | null>(null);

  useEffect(() => {
    client
      .json<{ data: Vocabulary[] }>('/v1/vocabularies')
      .then((answer) => setVocabularies(answer.data))
      .catch(() => setVocabularies([]));
  }, [client]);

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer.files[0];
    if (dropped) setFile(dropped);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const audioUrl = textField(form, 'audio_url').trim();
    if (!file && !audioUrl) {
      setMessage({ error: true, text: 'Choose an audio or video file, or give an audio URL.' });
      return;
    }
    const fields: Record<string, string> = {};
    for (const name of TEXT_FIELDS) {
      const value = textField(form, name).trim();
      if (value !== '' && !(name === 'language' && value === 'auto')) fields[name] = value;
    }
    try {
      const metadata = metadataField(textField(form, 'metadata'));
      if (metadata) fields.metadata = metadata;
    } catch (caught) {
      setMessage({ error: true, text: (caught as Error).message });
      return;
    }
    const sent = file ? fields : { ...fields, audio_url: audioUrl };
    const name = file ? file.name : audioUrl;
    setMessage(null);
    setProgress(0);
    try {
      const answer = await uploadTranscription(client, { file, fields: sent, onProgress: setProgress });
      setLast({
        request: {
          baseUrl: window.location.origin,
          source: file ? { file: file.name } : { audioUrl },
          fields,
        },
        answer,
      });
      setMessage({ error: false, text: `Uploaded ${name}.` });
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
      onUploaded();
    } catch (caught) {
      setMessage({ error: true, text: caught instanceof Error ? caught.message : 'Upload failed.' });
    } finally {
      setProgress(null);
    }
  };

  return (
    <form className="card stack" onSubmit={(event) => void submit(event)} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New transcription</h2>
      <div
        className={`drop-zone${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <label htmlFor={`${id}-file`}>Audio or video file</label>
        <input
          id={`${id}-file`}
          ref={fileInput}
          type="file"
          accept="audio/*,video/*"
          onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)}
        />
        <p className="muted">{file ? `Selected: ${file.name}` : 'or drop a file here'}</p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-url`}>Or an audio URL (the service fetches it)</label>
        <input
          id={`${id}-url`}
          name="audio_url"
          type="url"
          placeholder="https://…"
          disabled={file !== null}
        />
      </div>
      <div className="grid">
        <TierPicker id={`${id}-model`} />
        <div className="field">
          <label htmlFor={`${id}-language`}>Language</label>
          <input id={`${id}-language`} name="language" defaultValue="auto" pattern="auto|[a-z]{2,3}" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-vocabulary`}>Saved vocabulary</label>
          <select id={`${id}-vocabulary`} name="vocabulary_id" defaultValue="">
            <option value="">None</option>
            {vocabularies.map((vocabulary) => (
              <option key={vocabulary.id} value={vocabulary.id}>
                {vocabulary.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-inline`}>Extra words (comma-separated)</label>
          <input id={`${id}-inline`} name="vocabulary" placeholder="Kubernetes, gRPC" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-speakers`}>Speakers (optional)</label>
          <input id={`${id}-speakers`} name="num_speakers" type="number" min={1} max={50} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-min`}>Or at least</label>
          <input id={`${id}-min`} name="min_speakers" type="number" min={1} max={50} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-max`}>and at most</label>
          <input id={`${id}-max`} name="max_speakers" type="number" min={1} max={50} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-metadata`}>Metadata (key=value per line)</label>
          <textarea id={`${id}-metadata`} name="metadata" rows={2} placeholder="ticket=T-1" />
        </div>
      </div>
      {progress !== null && (
        <progress max={1} value={progress} aria-label="Upload progress">
          {Math.round(progress * 100)}%
        </progress>
      )}
      {message && (
        <p role={message.error ? 'alert' : 'status'} className={message.error ? 'error' : 'success'}>
          {message.text}
        </p>
      )}
      <button type="submit" className="primary" disabled={progress !== null}>
        Upload and transcribe
      </button>
      {last && <RequestPanel request={last.request} answer={last.answer} />}
    </form>
  );
}

const STATUSES = ['', 'queued', 'processing', 'completed', 'failed'];

export function TranscriptionsPage() {
  const client = useClient();
  const id = useId();
  const [filters, setFilters] = useState({ status: '', search: '' });
  const [paging, setPaging] = useState<CursorPaging>(firstPage);
  const [items, setItems] = useState<TranscriptionSummary[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const live = useLiveProgress(items);
  // A job that just finished is read again: its cost, or the reason it failed, come with the record.
  const finished = items
    .filter((item) => !isTerminal(item.status) && live[item.id] && isTerminal(live[item.id].status))
    .map((item) => item.id)
    .join(',');
  useEffect(() => {
    if (finished) setReloads((n) => n + 1);
  }, [finished]);

  const current = paging.current;
  useEffect(() => {
    const query = new URLSearchParams({ limit: '20' });
    if (filters.status) query.set('status', filters.status);
    if (filters.search) query.set('search', filters.search);
    if (current) query.set('cursor', current);
    let stale = false;
    client
      .json<TranscriptionPage>(`/v1/transcriptions?${query}`)
      .then((page) => {
        if (stale) return;
        setItems(page.data);
        setPaging((paging) => pageLoaded(paging, page.cursor, page.hasMore));
        setError(null);
      })
      .catch((caught: Error) => !stale && setError(caught.message));
    return () => {
      stale = true;
    };
  }, [client, filters, current, reloads]);

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setFilters({ status: textField(form, 'status'), search: textField(form, 'search').trim() });
    setPaging(firstPage());
  };
  const reload = useCallback(() => {
    setPaging(firstPage());
    setReloads((n) => n + 1);
  }, []);

  return (
    <>
      <h1>Transcriptions</h1>
      <UploadForm onUploaded={reload} />
      <section className="card" aria-labelledby={`${id}-list`}>
        <h2 id={`${id}-list`}>Your transcriptions</h2>
        <form className="filters" role="search" onSubmit={applyFilters}>
          <div className="field">
            <label htmlFor={`${id}-status`}>Status</label>
            <select id={`${id}-status`} name="status" defaultValue="">
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status || 'Any'}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-search`}>Search</label>
            <input id={`${id}-search`} name="search" type="search" />
          </div>
          <button type="submit">Apply</button>
        </form>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {items.length === 0 ? (
          <p className="muted">No transcriptions yet.</p>
        ) : (
          <ul className="job-list">
            {items.map((item) => (
              <li key={item.id}>
                <a
                  href={`${BASE}/transcriptions/${item.id}`}
                  onClick={(event) => {
                    event.preventDefault();
                    navigate(`/transcriptions/${item.id}`);
                  }}
                >
                  {item.originalFileName}
                </a>
                <span className="muted">
                  {new Date(item.createdOn).toLocaleString()} · {item.model}
                  {item.duration !== null ? ` · ${item.duration.toFixed(1)} s` : ''}
                  {item.cost !== null ? ` · ${formatEur(item.cost)}` : ''}
                </span>
                <StatusBadge progress={live[item.id] ?? item} />
                {(live[item.id]?.status ?? item.status) === 'failed' && (
                  <span className="error failure-reason">{item.errorMessage ?? 'Failed'}</span>
                )}
              </li>
            ))}
          </ul>
        )}
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={!hasPrevious(paging)} onClick={() => setPaging(previousPage)}>
            Previous page
          </button>
          <button type="button" disabled={paging.next === null} onClick={() => setPaging(nextPage)}>
            Next page
          </button>
        </nav>
      </section>
    </>
  );
}
