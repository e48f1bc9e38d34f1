import { FormEvent, KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { problemOf } from '../api/session-client';
import { EXPORT_FORMATS, TranscriptionDetail } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { useLiveProgress } from '../components/live-progress';
import { StatusBadge } from '../components/status-badge';
import { formatEur } from '../logic/money';
import { DEFAULT_EXPORT_CONTROLS, ExportControls, exportQuery } from '../logic/playground-fields';
import {
  clockTime,
  isLowConfidence,
  LOW_CONFIDENCE,
  searchTranscript,
  speakerLabels,
} from '../logic/transcript-tools';
import { activeWordIndex, Paragraph, paragraphs } from '../logic/word-index';
import { navigate } from '../router';
import { useClient } from '../session-context';

/** File name from Content-Disposition (filename="…"), else a plain one. */
function fileName(response: Response, fallback: string): string {
  const match = /filename="?([^";]+)"?/.exec(response.headers.get('Content-Disposition') ?? '');
  return match ? match[1] : fallback;
}

/** Caption and layout controls the download buttons send (exportTranscription's query parameters). */
function ExportControlsForm({
  controls,
  onChange,
}: {
  controls: ExportControls;
  onChange: (controls: ExportControls) => void;
}) {
  const id = useId();
  const number = (name: 'maxCharsPerLine' | 'maxLines' | 'maxCueSeconds', label: string, max: number) => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input
        id={`${id}-${name}`}
        type="number"
        min={1}
        max={max}
        step={name === 'maxCueSeconds' ? 0.1 : 1}
        value={controls[name]}
        onChange={(event) => onChange({ ...controls, [name]: event.currentTarget.value })}
      />
    </div>
  );
  return (
    <details className="export-controls">
      <summary>Download options</summary>
      <div className="grid">
        {number('maxCharsPerLine', 'Caption line length (characters)', 200)}
        {number('maxLines', 'Lines per caption', 3)}
        {number('maxCueSeconds', 'Longest caption (seconds)', 30)}
        <label className="check">
          <input
            type="checkbox"
            checked={controls.speakerLabels}
            onChange={(event) => onChange({ ...controls, speakerLabels: event.currentTarget.checked })}
          />{' '}
          Speaker labels
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={controls.timestamps}
            onChange={(event) => onChange({ ...controls, timestamps: event.currentTarget.checked })}
          />{' '}
          Timestamps (TXT, DOCX)
        </label>
      </div>
    </details>
  );
}

/** One name field per speaker; saved on the transcription, so every export uses the names. */
function SpeakerNamesForm({
  labels,
  names,
  onSave,
}: {
  labels: Map<string, string>;
  names: Record<string, string>;
  onSave: (names: Record<string, string>) => Promise<void>;
}) {
  const id = useId();
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: Record<string, string> = {};
    for (const speaker of labels.keys()) {
      const value = form.get(`speaker-${speaker}`);
      if (typeof value === 'string' && value.trim() !== '') next[speaker] = value.trim();
    }
    setSaved(false);
    await onSave(next);
    setSaved(true);
  };
  // Numbered labels ("Speaker 2") as the exports count them, whatever the speaker is called now.
  const numbered = speakerLabels(
    [...labels.keys()].map((speaker) => ({ speaker })),
    {},
  );
  return (
    <details className="speaker-names">
      <summary>Rename speakers</summary>
      <form className="grid" onSubmit={(event) => void submit(event)}>
        {[...labels.keys()].map((speaker) => (
          <div className="field" key={speaker}>
            <label htmlFor={`${id}-${speaker}`}>Name for {numbered.get(speaker)}</label>
            <input
              id={`${id}-${speaker}`}
              name={`speaker-${speaker}`}
              defaultValue={names[speaker] ?? ''}
              maxLength={100}
            />
          </div>
        ))}
        <button type="submit">Save names</button>
        <span role="status" className="success">
          {saved ? 'Names saved.' : ''}
        </span>
      </form>
    </details>
  );
}

export function TranscriptPage({ id }: { id: string }) {
  const client = useClient();
  const [detail, setDetail] = useState<TranscriptionDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [time, setTime] = useState(0);
  const [focusIndex, setFocusIndex] = useState(0);
  const [query, setQuery] = useState('');
  const [matchIndex, setMatchIndex] = useState(0);
  const [controls, setControls] = useState<ExportControls>(DEFAULT_EXPORT_CONTROLS);
  const audio = useRef<HTMLAudioElement>(null);
  const wordRefs = useRef<(HTMLSpanElement | null)[]>([]);
  const jobs = useMemo(() => (detail ? [detail] : []), [detail]);
  const live = useLiveProgress(jobs);
  const liveStatus = live[id]?.status;

  useEffect(() => {
    client
      .json<{ data: TranscriptionDetail }>(`/v1/transcriptions/${id}`)
      .then((answer) => setDetail(answer.data))
      .catch((caught: Error) => setError(caught.message));
    // Reloaded when the live status turns terminal: the words arrive with completion.
  }, [client, id, liveStatus === 'completed' || liveStatus === 'failed']);

  const words = useMemo(() => detail?.resultJson?.words ?? [], [detail]);
  const blocks = useMemo(() => paragraphs(words), [words]);
  const names = useMemo(() => detail?.speakerNames ?? {}, [detail]);
  const labels = useMemo(() => speakerLabels(words, names), [words, names]);
  // Speakers get colours in order of first appearance.
  const speakerColour = (speaker: Paragraph['speaker']) =>
    speaker === null ? 'none' : String([...labels.keys()].indexOf(String(speaker)) % 8);
  const matches = useMemo(() => searchTranscript(words, query), [words, query]);
  const matched = useMemo(() => {
    const indices = new Set<number>();
    for (const match of matches) for (let k = 0; k < match.length; k++) indices.add(match.first + k);
    return indices;
  }, [matches]);
  const current = activeWordIndex(words, time);

  /** Moves the player to `seconds` and plays from there (a click is the user's gesture: play is allowed). */
  const playFrom = (seconds: number) => {
    const player = audio.current;
    if (!player) return;
    player.currentTime = seconds;
    setTime(seconds);
    player.play().catch(() => undefined);
  };
  const seek = (index: number) => {
    setFocusIndex(index);
    playFrom(words[index].start);
  };
  // Roving focus: the transcript is one Tab stop; arrows move word by word, Enter/Space seeks.
  const onWordKey = (event: KeyboardEvent<HTMLSpanElement>, index: number) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (event.key in moves) {
      event.preventDefault();
      const next = Math.max(0, Math.min(words.length - 1, index + moves[event.key]));
      setFocusIndex(next);
      wordRefs.current[next]?.focus();
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      seek(index);
    }
  };
  const nextMatch = () => {
    if (matches.length === 0) return;
    const match = matches[matchIndex % matches.length];
    setMatchIndex((n) => (n + 1) % matches.length);
    setFocusIndex(match.first);
    wordRefs.current[match.first]?.scrollIntoView({ block: 'center' });
    const player = audio.current;
    if (player) {
      player.currentTime = words[match.first].start;
      setTime(words[match.first].start);
    }
  };

  const download = async (format: string) => {
    const response = await client.request(`/v1/transcriptions/${id}/export?${exportQuery(format, controls)}`);
    if (!response.ok) {
      setError((await problemOf(response)).message);
      return;
    }
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName(response, `transcript.${format}`);
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  const saveNames = async (speakerNames: Record<string, string>) => {
    try {
      const answer = await client.json<{ data: TranscriptionDetail }>(`/v1/transcriptions/${id}`, {
        method: 'PATCH',
        body: { speakerNames },
      });
      setDetail(answer.data);
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
      throw caught;
    }
  };

  const remove = async () => {
    if (!window.confirm(`Delete “${detail?.originalFileName}” and its transcript? This cannot be undone.`))
      return;
    try {
      await client.json(`/v1/transcriptions/${id}`, { method: 'DELETE' });
      navigate('/');
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  if (!detail)
    return error ? (
      <p role="alert" className="error">
        {error}
      </p>
    ) : (
      <p>Loading…</p>
    );
  const status = live[id] ?? detail;
  const failed = status.status === 'failed';
  const plainText = blocks
    .map((block) => {
      const text = block.words.map((word) => word.word).join(' ');
      const label = block.speaker === null ? null : labels.get(String(block.speaker));
      return label ? `${label}: ${text}` : text;
    })
    .join('\n\n');
  return (
    <>
      <p>
        <a
          href="/app/"
          onClick={(event) => {
            event.preventDefault();
            navigate('/');
          }}
        >
          ← All transcriptions
        </a>
      </p>
      <h1>{detail.originalFileName}</h1>
      <p className="meta">
        <StatusBadge progress={status} /> {detail.model}
        {detail.duration !== null && ` · ${detail.duration.toFixed(1)} s`}
        {detail.detectedLanguage && ` · ${detail.detectedLanguage}`}
        {detail.speakerCount !== null && ` · ${detail.speakerCount} speaker(s)`}
        {detail.cost !== null && ` · cost ${formatEur(detail.cost)}`}
        {detail.cost === null &&
          detail.estimatedCost !== null &&
          detail.estimatedCost !== undefined &&
          ` · estimated ${formatEur(detail.estimatedCost)}`}
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {failed && (
        <p role="alert" className="error">
          This transcription failed: {detail.errorMessage ?? 'no reason was recorded'}.
        </p>
      )}
      {!detail.audioDeletedAt && (
        <audio
          ref={audio}
          controls
          preload="metadata"
          src={`/v1/transcriptions/${id}/audio`}
          onTimeUpdate={(event) => setTime(event.currentTarget.currentTime)}
          onSeeked={(event) => setTime(event.currentTarget.currentTime)}
        >
          Your browser cannot play this audio.
        </audio>
      )}
      {status.status === 'completed' && (
        <>
          <div className="toolbar" role="group" aria-label="Download transcript">
            {EXPORT_FORMATS.map((format) => (
              <button key={format} type="button" onClick={() => void download(format)}>
                Download {format.toUpperCase()}
              </button>
            ))}
          </div>
          <ExportControlsForm controls={controls} onChange={setControls} />
          {labels.size > 0 && <SpeakerNamesForm labels={labels} names={names} onSave={saveNames} />}
          <div className="toolbar" role="search">
            <label htmlFor="transcript-search">Search the transcript</label>
            <input
              id="transcript-search"
              type="search"
              value={query}
              onChange={(event) => {
                setQuery(event.currentTarget.value);
                setMatchIndex(0);
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter') nextMatch();
              }}
            />
            <button type="button" onClick={nextMatch} disabled={matches.length === 0}>
              Next match
            </button>
            <span role="status" className="muted">
              {query.trim() ? `${matches.length} match${matches.length === 1 ? '' : 'es'}` : ''}
            </span>
            <CopyButton text={plainText} label="Copy text" />
          </div>
        </>
      )}
      <section
        className="transcript card"
        aria-label="Transcript (use the arrow keys to move between words, Enter to play from a word)"
      >
        {blocks.length === 0 && (
          <p className="muted">
            {status.status === 'completed'
              ? 'No words.'
              : failed
                ? 'No transcript: the job failed.'
                : 'Not ready yet.'}
          </p>
        )}
        {blocks.some((block) => block.words.some(isLowConfidence)) && (
          <p className="muted confidence-legend">
            <span className="legend-sample">Underlined</span> words are ones the recogniser was less
            than {Math.round(LOW_CONFIDENCE * 100)} % sure of; hover a word for its confidence.
          </p>
        )}
        {blocks.map((block) => (
          <p key={block.firstIndex} className={`paragraph speaker-${speakerColour(block.speaker)}`}>
            <button
              type="button"
              className="timestamp"
              aria-label={`Play from ${clockTime(block.words[0].start)}`}
              onClick={() => playFrom(block.words[0].start)}
            >
              {clockTime(block.words[0].start)}
            </button>
            {block.speaker !== null && <span className="speaker">{labels.get(String(block.speaker))}</span>}
            {block.words.map((word, offset) => {
              const index = block.firstIndex + offset;
              const unsure = isLowConfidence(word);
              const classes = ['word'];
              if (index === current) classes.push('current');
              if (unsure) classes.push('low-confidence');
              if (matched.has(index)) classes.push('match');
              return (
                <span key={index}>
                  <span
                    ref={(element) => {
                      wordRefs.current[index] = element;
                    }}
                    role="button"
                    tabIndex={index === focusIndex ? 0 : -1}
                    className={classes.join(' ')}
                    aria-current={index === current ? 'true' : undefined}
                    aria-label={`${word.word}, ${word.start.toFixed(2)} seconds${unsure ? ', low confidence' : ''}`}
                    title={
                      word.confidence !== undefined ? `confidence ${word.confidence.toFixed(2)}` : undefined
                    }
                    onClick={() => seek(index)}
                    onKeyDown={(event) => onWordKey(event, index)}
                  >
                    {word.word}
                  </span>{' '}
                </span>
              );
            })}
          </p>
        ))}
      </section>
      <details className="raw-json">
        <summary>Raw JSON (GET /v1/transcriptions/{id})</summary>
        <pre>
          <code>{JSON.stringify({ data: detail }, null, 2)}</code>
        </pre>
      </details>
      <button type="button" className="danger" onClick={() => void remove()}>
        Delete transcription
      </button>
    </>
  );
}
