import { buildContentDisposition, exportFileName } from './export-file-name';

const ID = '7b0c2a9e-4f0e-4a5c-9d43-2a1f6f3c9b10';

describe('exportFileName', () => {
  it('replaces the extension with the format', () => {
    expect(exportFileName('meeting.2025-03-04.mp3', ID, 'srt')).toBe('meeting.2025-03-04.srt');
    expect(exportFileName('podcast', ID, 'txt')).toBe('podcast.txt');
  });

  it('drops folders, from either kind of slash', () => {
    expect(exportFileName('C:\\Users\\anna\\Desktop\\call.wav', ID, 'vtt')).toBe('call.vtt');
    expect(exportFileName('../../etc/passwd', ID, 'json')).toBe('passwd.json');
  });

  it('keeps letters of any script but replaces quotes, control characters and emoji', () => {
    expect(exportFileName('Interview Müller.mp3', ID, 'docx')).toBe('Interview Müller.docx');
    expect(exportFileName('会议记录.m4a', ID, 'txt')).toBe('会议记录.txt');
    expect(exportFileName('say "hi"\r\n 🎉 now.ogg', ID, 'txt')).toBe('say _hi_ _ now.txt');
  });

  it('falls back to the transcription id when nothing usable is left', () => {
    expect(exportFileName('...', ID, 'txt')).toBe(`${ID}.txt`);
    expect(exportFileName('🎉🎉.wav', ID, 'srt')).toBe(`${ID}.srt`);
    expect(exportFileName('', ID, 'json')).toBe(`${ID}.json`);
  });

  it('treats a leading dot as part of the name, never leaving a hidden file', () => {
    expect(exportFileName('.mp3', ID, 'txt')).toBe('mp3.txt');
  });

  it('caps very long names', () => {
    const name = exportFileName(`${'a'.repeat(500)}.mp3`, ID, 'txt');
    expect(name).toBe(`${'a'.repeat(120)}.txt`);
  });
});

describe('buildContentDisposition', () => {
  it('gives ASCII names as they are in both parameters', () => {
    expect(buildContentDisposition('call.srt')).toBe(
      `attachment; filename="call.srt"; filename*=UTF-8''call.srt`,
    );
  });

  it('keeps a non-ASCII name exactly in filename* and transliterates the fallback', () => {
    const header = buildContentDisposition('Interview Müller.docx');
    expect(header).toBe(
      `attachment; filename="Interview Muller.docx"; filename*=UTF-8''Interview%20M%C3%BCller.docx`,
    );
    const encoded = /filename\*=UTF-8''(.+)$/u.exec(header)?.[1] ?? '';
    expect(decodeURIComponent(encoded)).toBe('Interview Müller.docx');
  });

  it('never puts a quote, backslash or non-ASCII byte into the quoted fallback', () => {
    const header = buildContentDisposition('a"b\\c 会议 (1).txt');
    const fallback = /filename="([^"]*)"/u.exec(header)?.[1];
    expect(fallback).toBe('a_b_c __ (1).txt');
    expect(header).toMatch(/^[\x20-\x7e]+$/u);
    expect(header).toContain(`filename*=UTF-8''a%22b%5Cc%20%E4%BC%9A%E8%AE%AE%20%281%29.txt`);
  });
});
