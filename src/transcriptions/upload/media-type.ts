import { filetypeinfo } from 'magic-bytes.js';
import type { MediaProbe } from '../../engine/audio/media-probe';

/** The upload kinds the API accepts, recognised from the bytes (magic numbers), never from the file name. */
const ACCEPTED_BY_SIGNATURE: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  ogx: 'audio/ogg',
  opus: 'audio/ogg',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  aac: 'audio/aac',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  mov: 'video/quicktime',
};

/** ffprobe's demuxer names for the same kinds (the second opinion, and the one that sees audio streams). */
const ACCEPTED_DEMUXERS = new Set([
  'mp3',
  'wav',
  'flac',
  'ogg',
  'mov,mp4,m4a,3gp,3g2,mj2',
  'aac',
  'matroska,webm',
]);

/** MP3 files without an ID3 tag start with an MPEG frame sync; AAC ADTS has the same sync with layer 0. */
function frameSyncKind(head: Buffer): string | null {
  if (head.length < 2 || head[0] !== 0xff || (head[1] & 0xe0) !== 0xe0) return null;
  return ((head[1] >> 1) & 0x03) === 0 ? 'aac' : 'mp3';
}

export function mediaTypeFromSignature(head: Buffer): string | null {
  const candidates = filetypeinfo(new Uint8Array(head)).map((info) => info.typename.toLowerCase());
  for (const name of candidates) if (ACCEPTED_BY_SIGNATURE[name]) return ACCEPTED_BY_SIGNATURE[name];
  const sync = frameSyncKind(head);
  return sync ? ACCEPTED_BY_SIGNATURE[sync] : null;
}

/**
 * The detected MIME type, or null unless the bytes are an accepted kind AND ffprobe finds an audio track.
 * MP4-family and WebM audio-only files are told apart from video by ffprobe's stream counts.
 */
export function acceptedMediaType(head: Buffer, probe: MediaProbe | null): string | null {
  const bySignature = mediaTypeFromSignature(head);
  if (!bySignature || !probe || probe.audioStreams === 0 || !ACCEPTED_DEMUXERS.has(probe.formatName))
    return null;
  if (bySignature === 'audio/mp4' && probe.videoStreams > 0) return 'video/mp4';
  if (bySignature === 'video/mp4' && probe.videoStreams === 0) return 'audio/mp4';
  if (bySignature === 'video/webm' && probe.videoStreams === 0) return 'audio/webm';
  return bySignature;
}
