import { escapeControlCharsInStrings, parseWhisperCliJson } from './whisper-cli-output.parser';

/** whisper-cli's JSON as it writes it: token text as raw bytes. */
function cliJson(tokens: Array<[Buffer | string, number, number]>, language = 'en'): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`{"result": {"language": "${language}"}, "transcription": [{"text": "x", "tokens": [`),
  ];
  tokens.forEach(([text, from, to], i) => {
    parts.push(Buffer.from(`${i > 0 ? ',' : ''}{"text": "`));
    parts.push(Buffer.isBuffer(text) ? text : Buffer.from(text));
    parts.push(Buffer.from(`", "offsets": {"from": ${from}, "to": ${to}}}`));
  });
  parts.push(Buffer.from(']}]}'));
  return Buffer.concat(parts);
}

describe('parseWhisperCliJson', () => {
  it('merges sub-word tokens, drops special tokens and converts ms to seconds', () => {
    const out = parseWhisperCliJson(
      cliJson([
        ['[_BEG_]', 0, 0],
        [' And', 320, 410],
        [' so', 410, 600],
        [',', 600, 650],
        [' my', 700, 900],
        [' Americ', 1000, 1300],
        ['ans', 1300, 1700],
        ['[_TT_90]', 1800, 1800],
        ['<|endoftext|>', 1800, 1800],
      ]),
    );
    expect(out.words).toEqual([
      { word: 'And', start: 0.32, end: 0.41 },
      { word: 'so,', start: 0.41, end: 0.65 },
      { word: 'my', start: 0.7, end: 0.9 },
      { word: 'Americans', start: 1, end: 1.7 },
    ]);
    expect(out.detectedLanguage).toBe('en');
  });

  it('decodes a UTF-8 character split over two tokens', () => {
    const word = Buffer.from(' Grüße', 'utf8'); // ü is c3 bc
    const cut = word.indexOf(0xc3) + 1;
    const out = parseWhisperCliJson(
      cliJson(
        [
          [word.subarray(0, cut), 0, 200],
          [word.subarray(cut), 200, 500],
          [Buffer.from(' 日本', 'utf8'), 500, 900],
        ],
        'de',
      ),
    );
    expect(out.words.map((w) => w.word)).toEqual(['Grüße', '日本']);
  });

  it('survives raw control characters and escaped quotes in token text', () => {
    const out = parseWhisperCliJson(cliJson([[' say\t\\"hi\\"', 0, 500]]));
    expect(out.words).toEqual([{ word: 'say\t"hi"', start: 0, end: 0.5 }]);
  });

  it("maps whisper.cpp's jw to the service's jv", () => {
    expect(parseWhisperCliJson(cliJson([[' a', 0, 1]], 'jw')).detectedLanguage).toBe('jv');
  });

  it('falls back to segment offsets when tokens are missing', () => {
    const json = Buffer.from(
      '{"result":{"language":"en"},"transcription":[{"text":" ask not","offsets":{"from":1000,"to":2000}}]}',
    );
    expect(parseWhisperCliJson(json).words).toEqual([
      { word: 'ask', start: 1, end: 1.5 },
      { word: 'not', start: 1.5, end: 2 },
    ]);
  });

  it('rejects output that is not whisper-cli JSON', () => {
    expect(() => parseWhisperCliJson(Buffer.from('not json'))).toThrow(/unreadable JSON/);
    expect(() => parseWhisperCliJson(Buffer.from('{"x":1}'))).toThrow(/transcription/);
  });
});

describe('escapeControlCharsInStrings', () => {
  it('escapes control characters inside strings only', () => {
    expect(escapeControlCharsInStrings('{\n "a": "x\ty\\"\n"\n}')).toBe('{\n "a": "x\\u0009y\\"\\u000a"\n}');
  });
});
