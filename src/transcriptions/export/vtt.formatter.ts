import type { ExportableTranscription } from './export.types';
import { captionLayout, segmentCaptions } from './caption-segmenter';
import { DEFAULT_EXPORT_OPTIONS, type CaptionExportOptions } from './export-options';
import { createSpeakerLabeler } from './speaker-labels';
import { formatCaptionTimestamp } from './timestamp';

/** WebVTT cue text treats &, < and > as markup; escaping > also keeps "-->" out of cue text. */
export function escapeVttText(text: string): string {
  return text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

/**
 * WebVTT: `WEBVTT` header, cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`. Every cue with a speaker opens with a voice
 * span `<v Speaker 1>`, which players show as metadata rather than text, so it does not count into the
 * line width; with speaker labels off there are no voice spans. No words: just the header.
 */
export function formatVtt(
  transcription: ExportableTranscription,
  options: CaptionExportOptions = DEFAULT_EXPORT_OPTIONS.captions,
): string {
  const label = createSpeakerLabeler(
    options.speakerLabels ? transcription.words : [],
    transcription.speakerNames,
  );
  const cues = segmentCaptions(transcription.words, captionLayout(options)).map((cue) => {
    const timing = `${formatCaptionTimestamp(cue.start, '.')} --> ${formatCaptionTimestamp(cue.end, '.')}`;
    const name = label(cue.speaker);
    const text = cue.lines.map(escapeVttText).join('\n');
    return `${timing}\n${name === null ? '' : `<v ${name}>`}${text}\n`;
  });
  return ['WEBVTT\n', ...cues].join('\n');
}
