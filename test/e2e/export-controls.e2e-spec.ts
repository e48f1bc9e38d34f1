import { strFromU8, unzipSync } from 'fflate';
import { expectMatchesSpec } from '../support/openapi-contract';
import { bearer, startTestApp, TestApp } from '../support/test-app';
import { asBuffer, insertTranscription } from '../support/transcriptions';

/** Caption and transcript layout controls on GET /v1/transcriptions/{id}/export. */
describe('Export layout controls', () => {
  let t: TestApp;
  let apiKey: string;
  let id: string;

  // Two speakers; the second talks for 12 s in one unpunctuated stretch of short words.
  const monologue = Array.from({ length: 24 }, (_, index) => ({
    word: `word${String(index).padStart(2, '0')}`,
    start: 2 + index * 0.5,
    end: 2.4 + index * 0.5,
    speaker: 'SPEAKER_01',
  }));

  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
    const workspace = await t.createWorkspace({ name: 'Captions' });
    apiKey = workspace.apiKey;
    const row = await insertTranscription(t, workspace.workspaceId, {
      resultText: 'Hello there. ' + monologue.map((word) => word.word).join(' '),
      resultJson: {
        words: [
          { word: 'Hello', start: 0.1, end: 0.5, speaker: 'SPEAKER_00' },
          { word: 'there.', start: 0.5, end: 0.9, speaker: 'SPEAKER_00' },
          ...monologue,
        ],
      },
    });
    id = row.id;
  });
  afterAll(() => t.close());

  const exportWith = async (query: string) => {
    const response = await t
      .http()
      .get(`/v1/transcriptions/${id}/export?${query}`)
      .set(bearer(apiKey))
      .buffer(true)
      .parse(asBuffer);
    const raw = response.body as Buffer;
    const contentType = String(response.headers['content-type']);
    const isProblem = contentType.startsWith('application/problem+json');
    const isJson = isProblem || contentType.startsWith('application/json');
    expectMatchesSpec(
      { ...response, body: isJson ? JSON.parse(raw.toString()) : undefined },
      'exportTranscription',
    );
    return {
      status: response.status,
      raw,
      text: raw.toString('utf8'),
      problem: isProblem ? JSON.parse(raw.toString()) : null,
    };
  };

  /** SubRip/WebVTT cues: the timing line and the text lines after it. */
  const cuesOf = (text: string) =>
    text
      .split(/\n\n+/u)
      .map((block) => block.split('\n').filter((line) => line !== ''))
      .map((lines) => {
        const timing = lines.findIndex((line) => line.includes(' --> '));
        return timing < 0 ? null : { timing: lines[timing], lines: lines.slice(timing + 1) };
      })
      .filter((cue): cue is { timing: string; lines: string[] } => cue !== null);

  const seconds = (stamp: string) => {
    const [h, m, s] = stamp.replace(',', '.').split(':');
    return Number(h) * 3600 + Number(m) * 60 + Number(s);
  };
  const durationOf = (timing: string) => {
    const [from, to] = timing.split(' --> ');
    return seconds(to) - seconds(from);
  };

  it('srt and vtt defaults are unchanged: 42 characters, 2 lines, 7 s cues, speaker labels', async () => {
    for (const format of ['srt', 'vtt']) {
      const plain = await exportWith(`format=${format}`);
      const explicit = await exportWith(
        `format=${format}&max_chars_per_line=42&max_lines=2&max_cue_seconds=7&speaker_labels=true`,
      );
      expect(plain.status).toBe(200);
      expect(explicit.text).toBe(plain.text);
      expect(plain.text).toContain('Speaker 1');
      for (const cue of cuesOf(plain.text)) {
        expect(cue.lines.length).toBeLessThanOrEqual(2);
        expect(durationOf(cue.timing)).toBeLessThanOrEqual(7);
      }
    }
  });

  it.each(['srt', 'vtt'])('%s honours max_chars_per_line, max_lines and max_cue_seconds', async (format) => {
    const { status, text } = await exportWith(
      `format=${format}&max_chars_per_line=20&max_lines=1&max_cue_seconds=2&speaker_labels=false`,
    );
    expect(status).toBe(200);
    expect(text).not.toContain('Speaker');
    const cues = cuesOf(text);
    expect(cues.length).toBeGreaterThanOrEqual(7);
    for (const cue of cues) {
      expect(cue.lines).toHaveLength(1);
      expect(cue.lines[0].length).toBeLessThanOrEqual(20);
      expect(durationOf(cue.timing)).toBeLessThanOrEqual(2);
    }
    const wide = cuesOf(
      (await exportWith(`format=${format}&max_chars_per_line=80&max_lines=3&max_cue_seconds=30`)).text,
    );
    expect(wide.length).toBeLessThan(cues.length);
    expect(wide.some((cue) => cue.lines.length === 3 || cue.lines.some((line) => line.length > 42))).toBe(
      true,
    );
  });

  it('txt drops the clock with timestamps=false and the labels with speaker_labels=false', async () => {
    const full = await exportWith('format=txt');
    expect(full.text).toMatch(/^\[00:00:00\] Speaker 1: Hello there\.\n\n\[00:00:02\] Speaker 2: word00/u);
    const bare = await exportWith('format=txt&timestamps=false&speaker_labels=false');
    expect(bare.status).toBe(200);
    expect(bare.text).toMatch(/^Hello there\.\n\nword00 word01/u);
    expect((await exportWith('format=txt&timestamps=false')).text).toMatch(/^Speaker 1: Hello there\./u);
    expect((await exportWith('format=txt&speaker_labels=false')).text).toMatch(
      /^\[00:00:00\] Hello there\./u,
    );
  });

  it('docx drops the clock and the labels on request', async () => {
    const paragraphs = (raw: Buffer) =>
      strFromU8(unzipSync(new Uint8Array(raw))['word/document.xml'])
        .split('</w:p>')
        .map((p) => Array.from(p.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/gu), (m) => m[1]).join(''));
    const full = await exportWith('format=docx');
    expect(full.status).toBe(200);
    expect(paragraphs(full.raw)).toContain('Speaker 1 [00:00:00] Hello there.');
    const bare = await exportWith('format=docx&timestamps=false&speaker_labels=false');
    expect(bare.status).toBe(200);
    expect(paragraphs(bare.raw)).toContain('Hello there.');
    expect(paragraphs(bare.raw).join('\n')).not.toMatch(/Speaker \d|\[00:00:0/u);
  });

  it('controls that do not apply to the format are ignored, like unknown parameters', async () => {
    const txt = await exportWith('format=txt');
    expect((await exportWith('format=txt&max_lines=9&max_cue_seconds=x&color=red')).text).toBe(txt.text);
    const srt = await exportWith('format=srt');
    expect((await exportWith('format=srt&timestamps=maybe')).text).toBe(srt.text);
    const json = await exportWith('format=json');
    expect((await exportWith('format=json&speaker_labels=nope&max_lines=0')).text).toBe(json.text);
  });

  it.each([
    ['srt', 'max_chars_per_line=19', 'max_chars_per_line'],
    ['vtt', 'max_chars_per_line=201', 'max_chars_per_line'],
    ['srt', 'max_chars_per_line=forty', 'max_chars_per_line'],
    ['srt', 'max_chars_per_line=42.5', 'max_chars_per_line'],
    ['vtt', 'max_lines=0', 'max_lines'],
    ['srt', 'max_lines=4', 'max_lines'],
    ['srt', 'max_lines=2&max_lines=3', 'max_lines'],
    ['vtt', 'max_cue_seconds=0.5', 'max_cue_seconds'],
    ['srt', 'max_cue_seconds=31', 'max_cue_seconds'],
    ['srt', 'max_cue_seconds=', 'max_cue_seconds'],
    ['vtt', 'speaker_labels=yes', 'speaker_labels'],
    ['srt', 'speaker_labels=TRUE', 'speaker_labels'],
    ['txt', 'timestamps=flase', 'timestamps'],
    ['txt', 'speaker_labels=0', 'speaker_labels'],
    ['docx', 'timestamps=true&timestamps=false', 'timestamps'],
    ['docx', 'speaker_labels=ture', 'speaker_labels'],
  ])('%s with %s is 422 validation naming %s', async (format, query, field) => {
    const { status, problem } = await exportWith(`format=${format}&${query}`);
    expect(status).toBe(422);
    expect(problem.type).toMatch(/\/validation$/u);
    expect(Object.keys(problem.errors.fieldErrors)).toEqual([field]);
  });

  it('an invalid format stays 422 invalid-format, whatever the controls', async () => {
    const { status, problem } = await exportWith('format=pdf&max_lines=9');
    expect(status).toBe(422);
    expect(problem.type).toMatch(/\/invalid-format$/u);
  });
});
