import { DragEvent, FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { MODELS, TranscriptionPage, TranscriptionSummary, Vocabulary } from '../api/types';
import { uploadTranscription } from '../api/upload';
import { useLiveProgress } from '../components/live-progress';
import { StatusBadge } from '../components/status-badge';
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

function UploadForm({ onUploaded }: { onUploaded: () => void }) {
  const client = useClient();
  const id = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const [vocabularies, setVocabularies] = useState<Vocabulary[]>([]);

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
    if (!file) {
      setMessage({ error: true, text: 'Choose an audio or video file first.' });
      return;
    }
    const form = new FormData(event.currentTarget);
    const fields: Record<string, string> = {};
    for (const name of ['model', 'language', 'vocabulary_id', 'num_speakers'])
      fields[name] = textField(form, name);
    setMessage(null);
    setProgress(0);
    try {
      await uploadTranscription(client, { file, fields, onProgress: setProgress });
      setMessage({ error: false, text: `Uploaded ${file.name}.` });
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
      <div className="grid">
        <div className="field">
          <label htmlFor={`${id}-model`}>Model</label>
          <select id={`${id}-model`} name="model" defaultValue="standard">
            {MODELS.map((model) => (
              <option key={model}>{model}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-language`}>Language</label>
          <input id={`${id}-language`} name="language" defaultValue="auto" pattern="auto|[a-z]{2,3}" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-vocabulary`}>Vocabulary</label>
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
          <label htmlFor={`${id}-speakers`}>Speakers (optional)</label>
          <input id={`${id}-speakers`} name="num_speakers" type="number" min={1} max={50} />
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
                </span>
                <StatusBadge progress={live[item.id] ?? item} />
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
