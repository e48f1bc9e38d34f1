/**
 * The "show the request" panel: the upload the playground just sent, written as the equivalent curl command,
 * typed-client program (clients/typescript) and OpenAI-SDK program. Pure: the same request gives the same
 * text, and the curl command runs as shown once `KEY` holds an API key.
 */
export interface PlaygroundRequest {
  /** Scheme, host and port of the service (the page's origin). */
  baseUrl: string;
  /** A local file (by name) or a URL the service fetches. */
  source: { file: string } | { audioUrl: string };
  /** The form fields besides `file`/`audio_url`, as sent (empty ones left out). */
  fields: Readonly<Record<string, string>>;
}

/** Form fields whose value is a number in the typed client's `fields`. */
const NUMERIC_FIELDS = new Set(['num_speakers', 'min_speakers', 'max_speakers']);
/** What the OpenAI-compatible route reads besides the file. */
const OPENAI_FIELDS = new Set(['model', 'language']);

/** A word for a POSIX shell: as is when it is plain, else single-quoted. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

const js = (value: unknown): string => JSON.stringify(value);

export function curlCommand(request: PlaygroundRequest): string {
  const lines = [
    `curl -X POST ${shellWord(`${request.baseUrl}/v1/transcriptions`)}`,
    `-H "Authorization: Bearer $KEY"`,
    'file' in request.source
      ? `-F ${shellWord(`file=@${request.source.file}`)}`
      : `--form-string ${shellWord(`audio_url=${request.source.audioUrl}`)}`,
    // --form-string: a value starting with @ or < is sent as text, never read from a file.
    ...Object.entries(request.fields).map(
      ([name, value]) => `--form-string ${shellWord(`${name}=${value}`)}`,
    ),
  ];
  return lines.join(' \\\n  ');
}

function typedFields(fields: Readonly<Record<string, string>>): Record<string, string | number> {
  const result: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'metadata') continue;
    result[name] = NUMERIC_FIELDS.has(name) ? Number(value) : value;
  }
  return result;
}

function objectLiteral(value: Record<string, unknown>): string {
  const entries = Object.entries(value).map(
    ([name, item]) => `${/^[A-Za-z_$][\w$]*$/.test(name) ? name : js(name)}: ${js(item)}`,
  );
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

export function typedClientCode(request: PlaygroundRequest): string {
  const client = `const client = new TranscriptionClient({ baseUrl: ${js(request.baseUrl)}, apiKey: process.env.KEY! });`;
  const follow = [
    'const transcript = await client.waitForCompletion(job.id); // SSE, falls back to polling',
    'console.log(transcript.resultText);',
  ];
  if ('audioUrl' in request.source) {
    return [
      "import { TranscriptionClient } from './clients/typescript/src';",
      '',
      client,
      '// The typed client uploads files; a job from a URL is one POST with the same form fields.',
      'const form = new FormData();',
      `form.append('audio_url', ${js(request.source.audioUrl)});`,
      ...Object.entries(request.fields).map(([name, value]) => `form.append(${js(name)}, ${js(value)});`),
      `const response = await fetch(${js(`${request.baseUrl}/v1/transcriptions`)}, {`,
      "  method: 'POST',",
      '  headers: { Authorization: `Bearer ${process.env.KEY}` },',
      '  body: form,',
      '});',
      'const { data: job } = (await response.json()) as { data: { id: string } };',
      ...follow,
    ].join('\n');
  }
  const options: string[] = [`fields: ${objectLiteral(typedFields(request.fields))}`];
  if (request.fields.metadata) options.push(`metadata: ${request.fields.metadata}`);
  return [
    "import { TranscriptionClient } from './clients/typescript/src';",
    '',
    client,
    `const job = await client.upload({ path: ${js(request.source.file)} }, { ${options.join(', ')} });`,
    ...follow,
  ].join('\n');
}

export function openAiCode(request: PlaygroundRequest): string {
  const fromUrl = 'audioUrl' in request.source;
  const params = [
    fromUrl
      ? `file: await toFile(await fetch(${js((request.source as { audioUrl: string }).audioUrl)}), 'audio'),`
      : `file: fs.createReadStream(${js((request.source as { file: string }).file)}),`,
    `model: ${js(request.fields.model ?? 'whisper-1')},`,
  ];
  if (request.fields.language && request.fields.language !== 'auto') {
    params.push(`language: ${js(request.fields.language)},`);
  }
  const missing = Object.keys(request.fields).filter((name) => !OPENAI_FIELDS.has(name));
  return [
    fromUrl
      ? "import OpenAI, { toFile } from 'openai';"
      : "import fs from 'node:fs';\nimport OpenAI from 'openai';",
    '',
    `const openai = new OpenAI({ apiKey: process.env.KEY, baseURL: ${js(`${request.baseUrl}/v1`)} });`,
    ...(missing.length > 0
      ? [
          `// Not read by the OpenAI-compatible route (use POST /v1/transcriptions for them): ${missing.join(', ')}`,
        ]
      : []),
    'const transcription = await openai.audio.transcriptions.create({',
    ...params.map((line) => `  ${line}`),
    '});',
    'console.log(transcription.text);',
  ].join('\n');
}
