import type { ExportableTranscription } from './export.types';
import { captionLayout, segmentCaptions } from './caption-segmenter';
import { DEFAULT_EXPORT_OPTIONS, type CaptionExportOptions } from './export-options';
import { createSpeakerLabeler } from './speaker-labels';
import { formatCaptionTimestamp } from './timestamp';

/**
 * SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line between cues. "Speaker N: " starts the
 * first cue after each speaker change (unless speaker labels are off) and counts into that line's width.
 * No words: an empty file.
 */
export function formatSrt(
  transcription: ExportableTranscription,
  options: CaptionExportOptions = DEFAULT_EXPORT_OPTIONS.captions,
): string {
  const label = createSpeakerLabeler(
    options.speakerLabels ? transcription.words : [],
    transcription.speakerNames,
  );
  const cues = segmentCaptions(transcription.words, {
    ...captionLayout(options),
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
