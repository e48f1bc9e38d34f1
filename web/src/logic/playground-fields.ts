/**
 * The metadata box of the playground: one `key=value` per line (blank lines skipped) as the JSON object the
 * `metadata` form field takes; '' when there is none. A line without `=` is an error naming it.
 */
export function metadataField(text: string): string {
  const entries: [string, string][] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const separator = line.indexOf('=');
    if (separator < 1) throw new Error(`Metadata: “${line.trim()}” is not key=value`);
    entries.push([line.slice(0, separator).trim(), line.slice(separator + 1).trim()]);
  }
  return entries.length === 0 ? '' : JSON.stringify(Object.fromEntries(entries));
}

/** The export controls the download buttons send (the service ignores those a format does not read). */
export interface ExportControls {
  maxCharsPerLine: string;
  maxLines: string;
  maxCueSeconds: string;
  speakerLabels: boolean;
  timestamps: boolean;
}

export const DEFAULT_EXPORT_CONTROLS: ExportControls = {
  maxCharsPerLine: '42',
  maxLines: '2',
  maxCueSeconds: '7',
  speakerLabels: true,
  timestamps: true,
};

export function exportQuery(format: string, controls: ExportControls): string {
  const query = new URLSearchParams({ format });
  if (format === 'srt' || format === 'vtt') {
    if (controls.maxCharsPerLine) query.set('max_chars_per_line', controls.maxCharsPerLine);
    if (controls.maxLines) query.set('max_lines', controls.maxLines);
    if (controls.maxCueSeconds) query.set('max_cue_seconds', controls.maxCueSeconds);
  }
  if (format === 'txt' || format === 'docx') query.set('timestamps', String(controls.timestamps));
  if (format !== 'json') query.set('speaker_labels', String(controls.speakerLabels));
  return query.toString();
}
