import { KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import { problemOf } from '../api/session-client';
import { EXPORT_FORMATS, TranscriptionDetail } from '../api/types';
import { useLiveProgress } from '../components/live-progress';
import { StatusBadge } from '../components/status-badge';
import { activeWordIndex, Paragraph, paragraphs } from '../logic/word-index';
import { navigate } from '../router';
import { useClient } from '../session-context';

/** File name from Content-Disposition (filename="…"), else a plain one. */
function fileName(response: Response, fallback: string): string {
  const match = /filename="?([^";]+)"?/.exec(response.headers.get('Content-Disposition') ?? '');
  return match ? match[1] : fallback;
}

export function TranscriptPage({ id }: { id: string }) {
  const client = useClient();
  const [detail, setDetail] = useState<TranscriptionDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [time, setTime] = useState(0);
  const [focusIndex, setFocusIndex] = useState(0);
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
  // Speaker labels ("SPEAKER_00", 0, …) get colours in order of first appearance.
  const speakerColour = useMemo(() => {
    const order = [...new Set(blocks.map((block) => block.speaker).filter((speaker) => speaker !== null))];
    return (speaker: Paragraph['speaker']) =>
      speaker === null ? 'none' : String(order.indexOf(speaker) % 8);
  }, [blocks]);
  const current = activeWordIndex(words, time);

  const seek = (index: number) => {
    const player = audio.current;
    if (!player) return;
    player.currentTime = words[index].start;
    setTime(words[index].start);
    setFocusIndex(index);
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

  const download = async (format: string) => {
    const response = await client.request(`/v1/transcriptions/${id}/export?format=${format}`);
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
        {detail.cost !== null && ` · ${detail.cost.toFixed(4)} EUR`}
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {detail.errorMessage && <p className="error">{detail.errorMessage}</p>}
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
        <div className="toolbar" role="group" aria-label="Download transcript">
          {EXPORT_FORMATS.map((format) => (
            <button key={format} type="button" onClick={() => void download(format)}>
              Download {format.toUpperCase()}
            </button>
          ))}
        </div>
      )}
      <section
        className="transcript card"
        aria-label="Transcript (use the arrow keys to move between words, Enter to play from a word)"
      >
        {blocks.length === 0 && (
          <p className="muted">{status.status === 'completed' ? 'No words.' : 'Not ready yet.'}</p>
        )}
        {blocks.map((block) => (
          <p key={block.firstIndex} className={`paragraph speaker-${speakerColour(block.speaker)}`}>
            {block.speaker !== null && (
              <span className="speaker">
                {typeof block.speaker === 'number' ? `Speaker ${block.speaker + 1}` : block.speaker}
              </span>
            )}
            {block.words.map((word, offset) => {
              const index = block.firstIndex + offset;
              return (
                <span key={index}>
                  <span
                    ref={(element) => {
                      wordRefs.current[index] = element;
                    }}
                    role="button"
                    tabIndex={index === focusIndex ? 0 : -1}
                    className={index === current ? 'word current' : 'word'}
                    aria-current={index === current ? 'true' : undefined}
                    aria-label={`${word.word}, ${word.start.toFixed(2)} seconds`}
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
      <button type="button" className="danger" onClick={() => void remove()}>
        Delete transcription
      </button>
    </>
  );
}
