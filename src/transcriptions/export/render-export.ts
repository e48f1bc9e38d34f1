import { formatDocx } from './docx.formatter';
import { exportFileName } from './export-file-name';
import type { ExportableTranscription, ExportFormat, RenderedExport } from './export.types';
import { DEFAULT_EXPORT_OPTIONS, type ExportOptions } from './export-options';
import { formatJson } from './json.formatter';
import { formatSrt } from './srt.formatter';
import { formatTxt } from './txt.formatter';
import { formatVtt } from './vtt.formatter';

export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  txt: 'text/plain; charset=utf-8',
  srt: 'text/srt; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  json: 'application/json; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

async function renderBody(
  transcription: ExportableTranscription,
  format: ExportFormat,
  options: ExportOptions,
): Promise<Buffer> {
  switch (format) {
    case 'txt':
      return Buffer.from(formatTxt(transcription, options.transcript), 'utf8');
    case 'srt':
      return Buffer.from(formatSrt(transcription, options.captions), 'utf8');
    case 'vtt':
      return Buffer.from(formatVtt(transcription, options.captions), 'utf8');
    case 'json':
      return Buffer.from(formatJson(transcription), 'utf8');
    case 'docx':
      return formatDocx(transcription, options.transcript);
  }
}

/** The one entry point: the file body, its media type and a download name. Pure apart from docx's zip. */
export async function renderExport(
  transcription: ExportableTranscription,
  format: ExportFormat,
  options: ExportOptions = DEFAULT_EXPORT_OPTIONS,
): Promise<RenderedExport> {
  return {
    contentType: EXPORT_CONTENT_TYPES[format],
    fileName: exportFileName(transcription.originalFileName, transcription.id, format),
    body: await renderBody(transcription, format, options),
  };
}
