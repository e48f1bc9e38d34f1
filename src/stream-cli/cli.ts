#!/usr/bin/env node
/**
 * `npx stt-stream FILE` (after `npm run build`): streams an audio or video file to a running service's realtime
 * WebSocket at real-time pace (`--fast`: as fast as the server takes it) and prints what it hears, the partial
 * hypothesis as it grows and each final transcript with its time. The address and key come from STT_BASE_URL and
 * STT_API_KEY (what the quick start prints), or --base-url / --api-key. ffmpeg converts the file (any format it
 * reads) to 16 kHz PCM16 mono; `-` reads raw 16 kHz PCM16 from standard input (a microphone piped through
 * ffmpeg or arecord). Exit code 0 when the session ended normally, 1 when the server ended it, 2 on bad options.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { rawText } from '../realtime/websocket-text';

const USAGE = `Usage: stt-stream [--base-url URL] [--api-key KEY] [--model TIER] [--fast] FILE|-

Streams FILE (any format ffmpeg reads; - for raw 16 kHz PCM16 mono on standard input) to /v1/realtime and prints
partials (…) and finals ([start–end s] text). STT_BASE_URL and STT_API_KEY are read when the options are not given.
`;
const RATE = 16_000;

const BYTES_PER_SECOND = RATE * 2;
const CHUNK_MS = 100;

interface StreamOptions {
  baseUrl: string;
  apiKey: string;
  model: string | undefined;
  fast: boolean;
  file: string;
}

export function parseStreamOptions(
  argv: string[],
  env: { STT_BASE_URL?: string; STT_API_KEY?: string },
): StreamOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      model: { type: 'string' },
      fast: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const baseUrl = values['base-url'] ?? env.STT_BASE_URL ?? 'http://localhost:3000';
  const apiKey = values['api-key'] ?? env.STT_API_KEY;
  if (!/^https?:\/\//.test(baseUrl)) throw new Error('--base-url (or STT_BASE_URL) must be http(s)://…');
  if (!apiKey) throw new Error('--api-key (or STT_API_KEY) is required');
  if (positionals.length !== 1) throw new Error('give one FILE (or - for standard input)');
  return { baseUrl, apiKey, model: values.model, fast: values.fast, file: positionals[0] };
}

/** 16 kHz PCM16 mono from the file through ffmpeg, or standard input as it is for `-`. */
function pcmSource(file: string): NodeJS.ReadableStream {
  if (file === '-') return process.stdin;
  const ffmpeg = spawn(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-ac', '1', '-ar', String(RATE), '-f', 's16le', '-'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  ffmpeg.on('error', (error) => {
    process.stderr.write(`ffmpeg: ${error.message}\n`);
    process.exit(2);
  });
  return ffmpeg.stdout;
}

type ServerEvent = {
  type: string;
  transcript?: string;
  partial?: string;
  audio_start_ms?: number;
  audio_end_ms?: number;
  error?: { code: string; message: string };
};

async function stream(options: StreamOptions): Promise<number> {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/v1/realtime`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (options.model) url.searchParams.set('model', options.model);
  const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${options.apiKey}` } });
  const tty = process.stdout.isTTY === true;
  let shownPartial = '';
  let serverEnded: string | null = null;
  const showPartial = (text: string): void => {
    if (text === shownPartial || text === '') return;
    shownPartial = text;
    if (tty) process.stdout.write(`\r\x1b[2K… ${text}`);
    else process.stdout.write(`… ${text}\n`);
  };
  const send = (event: Record<string, unknown>): void => socket.send(JSON.stringify(event));
  const sendAudio = async (): Promise<void> => {
    const started = Date.now();
    let sentBytes = 0;
    let carry = Buffer.alloc(0);
    const chunkBytes = (BYTES_PER_SECOND * CHUNK_MS) / 1000;
    for await (const piece of pcmSource(options.file)) {
      carry = Buffer.concat([carry, piece as Buffer]);
      while (carry.length >= chunkBytes) {
        if (socket.readyState !== WebSocket.OPEN) return;
        send({ type: 'input_audio_buffer.append', audio: carry.subarray(0, chunkBytes).toString('base64') });
        carry = carry.subarray(chunkBytes);
        sentBytes += chunkBytes;
        const due = started + (sentBytes / BYTES_PER_SECOND) * 1000;
        if (!options.fast && due > Date.now())
          await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      }
    }
    if (socket.readyState !== WebSocket.OPEN) return;
    if (carry.length > 0) send({ type: 'input_audio_buffer.append', audio: carry.toString('base64') });
    // Commits are answered in order, each once the audio before it is transcribed: the first ends the open
    // utterance, the second has nothing left to end, so its answer (input_audio_buffer_commit_empty) comes after
    // the last transcript and closes the session. (A first commit with nothing to end is answered the same way.)
    send({ type: 'input_audio_buffer.commit' });
    send({ type: 'input_audio_buffer.commit' });
  };
  socket.on('message', (data) => {
    const event = JSON.parse(rawText(data)) as ServerEvent;
    switch (event.type) {
      case 'session.created':
        send({
          type: 'session.update',
          session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: RATE } } } },
        });
        break;
      case 'session.updated':
        void sendAudio().catch((error: unknown) => {
          process.stderr.write(`${String(error)}\n`);
          socket.close(1000);
        });
        break;
      case 'conversation.item.input_audio_transcription.delta':
        showPartial(event.partial ?? '');
        break;
      case 'conversation.item.input_audio_transcription.completed': {
        if (tty && shownPartial !== '') process.stdout.write('\r\x1b[2K');
        shownPartial = '';
        const span = `[${((event.audio_start_ms ?? 0) / 1000).toFixed(1)}–${((event.audio_end_ms ?? 0) / 1000).toFixed(1)} s]`;
        process.stdout.write(`${span} ${event.transcript ?? ''}\n`);
        break;
      }
      case 'error':
        if (event.error?.code === 'input_audio_buffer_commit_empty') {
          socket.close(1000);
        } else {
          serverEnded = `${event.error?.code ?? 'error'}: ${event.error?.message ?? ''}`;
          process.stderr.write(`\n${serverEnded}\n`);
        }
        break;
    }
  });
  return new Promise((resolve) => {
    socket.on('error', (error) => {
      process.stderr.write(`${error.message}\n`);
      resolve(1);
    });
    socket.on('close', (code) => resolve(code === 1000 || code === 1005 ? (serverEnded ? 1 : 0) : 1));
  });
}

async function main(): Promise<number> {
  let options: StreamOptions | 'help';
  try {
    // A client's own settings, not the service's configuration.
    // eslint-disable-next-line no-restricted-properties
    const { STT_BASE_URL, STT_API_KEY } = process.env;
    options = parseStreamOptions(process.argv.slice(2), { STT_BASE_URL, STT_API_KEY });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  return stream(options);
}

if (require.main === module) {
  void main().then((code) => process.exit(code));
}
