import type { ExportableTranscription } from './export.types';
import { segmentCaptions } from './caption-segmenter';
import { createSpeakerLabeler } from './speaker-labels';
import { formatCaptionTimestamp } from './timestamp';

/**
 * SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line between cues. "Speaker N: " starts the
 * first cue after each speaker change and counts into that line's 42 characters. No words: an empty file.
 */
export function formatSrt(transcription: ExportableTranscription): string {
  const label = createSpeakerLabeler(transcription.words);
  const cues = segmentCaptions(transcription.words, {
    speakerPrefix: (speaker) => {
      const name = label(speaker);
      return name === null ? null : `${name}: `;
    },
  });
  return cues
    .map((cue, index) => {
      const timing = `${formatCaptionTimestamp(cue.start, ',')} --> ${formatCaptionTimestamp(cue.end, ',')}`;
      return `${index + 1}\n${timing}\n${cue.lines.join('\n')}\n`;
    })
    .join('\n');
}
