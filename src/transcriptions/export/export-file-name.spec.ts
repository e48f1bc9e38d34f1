import { buildContentDisposition, exportFileName } from './export-file-name';

const ID = '7b0c2a9e-4f0e-4a5c-9d43-2a1f6f3c9b10';
const PRESENTATION = 'Präsentation “Q3” – 日本';

/** The value of `filename*`, decoded the way RFC 8187 says (UTF-8, percent-encoded). */
function decodedExtValue(header: string): string {
  const encoded = /filename\*=UTF-8''([^;\s]+)$/u.exec(header)?.[1];
  if (encoded === undefined) throw new Error(`no filename* in ${header}`);
  return decodeURIComponent(encoded);
}

describe('exportFileName', () => {
  it('replaces the extension with the format', () => {
    expect(exportFileName('meeting.2025-03-04.mp3', ID, 'srt')).toBe('meeting.2025-03-04.srt');
    expect(exportFileName('podcast', ID, 'txt')).toBe('podcast.txt');
  });

  it('drops folders, from either kind of slash', () => {
    expect(exportFileName('C:\\Users\\anna\\Desktop\\call.wav', ID, 'vtt')).toBe('call.vtt');
    expect(exportFileName('../../etc/passwd', ID, 'json')).toBe('passwd.json');
  });

  it('keeps the whole base name: letters of any script, typographic quotes and dashes, emoji, ASCII marks', () => {
    expect(exportFileName(`${PRESENTATION}.wav`, ID, 'txt')).toBe(`${PRESENTATION}.txt`);
    expect(exportFileName('Interview Müller.mp3', ID, 'docx')).toBe('Interview Müller.docx');
    expect(exportFileName('会议记录.m4a', ID, 'txt')).toBe('会议记录.txt');
    expect(exportFileName('say "hi" 🎉 now & then #2 [final].ogg', ID, 'srt')).toBe(
      'say "hi" 🎉 now & then #2 [final].srt',
    );
    expect(exportFileName('👩‍💻 stand-up  notes.wav', ID, 'vtt')).toBe('👩‍💻 stand-up  notes.vtt');
  });

  it('composes decomposed letters (NFC), so the same name always gives the same bytes', () => {
    expect(exportFileName('Pra\u0308sentation.wav', ID, 'txt')).toBe('Präsentation.txt');
  });

  it('replaces control characters, line separators and bidi overrides, one "_" per run', () => {
    expect(exportFileName('say hi\r\n\t now.ogg', ID, 'txt')).toBe('say hi_ now.txt');
    expect(exportFileName('a\u2028b\u0000c\u007fd.wav', ID, 'txt')).toBe('a_b_c_d.txt');
    // "invoice<RLO>fdp.exe" would display as "invoiceexe.pdf".
    expect(exportFileName('invoice\u202efdp.exe.wav', ID, 'txt')).toBe('invoice_fdp.exe.txt');
    expect(exportFileName('lone \ud800 surrogate.wav', ID, 'txt')).toBe('lone _ surrogate.txt');
  });

  it('falls back to the transcription id when nothing usable is left', () => {
    expect(exportFileName('...', ID, 'txt')).toBe(`${ID}.txt`);
    expect(exportFileName('\u0001\u0002.wav', ID, 'srt')).toBe(`${ID}.srt`);
    expect(exportFileName('', ID, 'json')).toBe(`${ID}.json`);
  });

  it('treats a leading dot as part of the name, never leaving a hidden file', () => {
    expect(exportFileName('.mp3', ID, 'txt')).toBe('mp3.txt');
    expect(exportFileName('..hidden.mp3', ID, 'txt')).toBe('hidden.txt');
  });

  it('caps very long names at whole characters', () => {
    expect(exportFileName(`${'a'.repeat(500)}.mp3`, ID, 'txt')).toBe(`${'a'.repeat(120)}.txt`);
    // 119 letters then a family emoji (one grapheme of 7 code points): kept whole or not at all.
    const family = '👨‍👩‍👧‍👦';
    expect(exportFileName(`${'b'.repeat(119)}${family}${family}.mp3`, ID, 'txt')).toBe(
      `${'b'.repeat(119)}${family}.txt`,
    );
  });
});

describe('buildContentDisposition', () => {
  it('gives ASCII names as they are in both parameters', () => {
    expect(buildContentDisposition('call.srt')).toBe(
      `attachment; filename="call.srt"; filename*=UTF-8''call.srt`,
    );
  });

  it('carries the whole UTF-8 name in filename* (RFC 8187) and an ASCII stand-in in filename', () => {
    const header = buildContentDisposition(`${PRESENTATION}.txt`);
    expect(header).toBe(
      `attachment; filename="Prasentation 'Q3' - __.txt"; ` +
        `filename*=UTF-8''Pr%C3%A4sentation%20%E2%80%9CQ3%E2%80%9D%20%E2%80%93%20%E6%97%A5%E6%9C%AC.txt`,
    );
    expect(decodedExtValue(header)).toBe(`${PRESENTATION}.txt`);
  });

  it('keeps a non-ASCII name exactly in filename* and transliterates the fallback', () => {
    const header = buildContentDisposition('Interview Müller.docx');
    expect(header).toBe(
      `attachment; filename="Interview Muller.docx"; filename*=UTF-8''Interview%20M%C3%BCller.docx`,
    );
    expect(decodedExtValue(header)).toBe('Interview Müller.docx');
  });

  it('encodes every character outside RFC 8187 attr-char, and decodes back to the exact name', () => {
    const name = `it's (v2) *draft* 100% "ok" ; a=b, c\\d 🎉.txt`;
    const header = buildContentDisposition(name);
    const encoded = /filename\*=UTF-8''(.+)$/u.exec(header)?.[1] ?? '';
    expect(encoded).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]+$/u);
    expect(decodedExtValue(header)).toBe(name);
  });

  it('never puts a quote, backslash or non-ASCII byte into the quoted fallback', () => {
    const header = buildContentDisposition('a"b\\c 会议 (1).txt');
    const fallback = /filename="([^"]*)"/u.exec(header)?.[1];
    expect(fallback).toBe("a'b_c __ (1).txt");
    expect(header).toMatch(/^[\x20-\x7e]+$/u);
    expect(header).toContain(`filename*=UTF-8''a%22b%5Cc%20%E4%BC%9A%E8%AE%AE%20%281%29.txt`);
  });
});
