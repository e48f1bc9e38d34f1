/**
 * Upload: a ~500 MB WAV (16 kHz mono pink noise made with ffmpeg in the temp folder, real audio so it passes
 * type detection; deleted afterwards) streamed to POST /v1/transcriptions of a throwaway ROLE=api process, and
 * 501 MB bodies that must be refused early with 422 file-too-large.
 *
 *   npm run bench:upload
 *   node dist-bench/bench/upload.js
 *
 * Reported: upload time and throughput; the API process's VmRSS before, the peak VmRSS sampled every 100 ms during
 * the upload, VmRSS after, and VmHWM (/proc/<pid>/status). Target: RSS growth < 100 MB.
 * For the 501 MB bodies (and a 600 MB chunked one) (the same WAV plus zero bytes inside the file part), once with a Content-Length header
 * (as curl sends) and once with chunked transfer encoding (no length known up front): the bytes the client had
 * written when the answer arrived, the time to the answer, the status and problem type, and whether the server
 * closed the connection. The client stops sending as soon as the answer arrives.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { benchTempDir, ffmpeg } from './lib/bench-audio';
import {
  fixed,
  machineInfo,
  markdownTable,
  processMemory,
  publish,
  quietWaitMs,
  runMain,
  seconds,
  waitForQuietMachine,
} from './lib/measure';
import { withSandbox } from './lib/sandbox';

const LIMIT = 500_000_000;
const CHUNK = 1024 * 1024;

interface UploadOutcome {
  status: number;
  body: string;
  /** Bytes of the request body the client had handed to the socket when the response head arrived. */
  bytesSentAtAnswer: number;
  /** Body bytes the client wrote in all. */
  bytesSentTotal: number;
  bodyBytes: number;
  seconds: number;
  serverClosed: boolean;
}

/**
 * Streams a multipart body made of the file plus `extraZeros` zero bytes in the file part; stops writing as soon
 * as the response arrives or the connection closes.
 */
function streamUpload(
  url: string,
  apiKey: string,
  file: string,
  extraZeros: number,
  declareLength: boolean,
): Promise<UploadOutcome> {
  const boundary = `----stt-bench-${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\n` +
      `Content-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const fileSize = fs.statSync(file).size;
  const bodyBytes = head.length + fileSize + extraZeros + tail.length;
  const started = process.hrtime.bigint();
  return new Promise<UploadOutcome>((resolve, reject) => {
    let answered = false;
    let sent = 0;
    let sentAtAnswer = -1;
    let status = 0;
    let responseBody = '';
    let serverClosed = false;
    let finished = false;
    let answerSeconds = 0;
    const request = http.request(`${url}/v1/transcriptions`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        ...(declareLength ? { 'Content-Length': String(bodyBytes) } : { 'Transfer-Encoding': 'chunked' }),
      },
    });
    const done = (): void => {
      if (finished) return;
      finished = true;
      resolve({
        status,
        body: responseBody,
        bytesSentAtAnswer: sentAtAnswer < 0 ? sent : sentAtAnswer,
        bytesSentTotal: sent,
        bodyBytes,
        seconds: answerSeconds || seconds(started),
        serverClosed,
      });
    };
    request.on('response', (response) => {
      answered = true;
      sentAtAnswer = sent;
      answerSeconds = seconds(started);
      status = response.statusCode ?? 0;
      response.setEncoding('utf8');
      response.on('data', (text: string) => (responseBody += text));
      response.on('end', () => {
        // Give the server a moment to close the connection after an early answer.
        setTimeout(() => {
          if (!request.destroyed) request.destroy();
          done();
        }, 200);
      });
    });
    request.on('socket', (socket) => socket.on('close', () => (serverClosed = !finished && answered)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      // EPIPE/ECONNRESET after an early answer is the server closing on us, which is what we want to see.
      if (answered || ['EPIPE', 'ECONNRESET'].includes(error.code ?? '')) {
        serverClosed = true;
        if (answered) done();
        return;
      }
      reject(error);
    });

    const write = (chunk: Buffer): Promise<boolean> =>
      new Promise((resolveWrite) => {
        if (answered || request.destroyed) return resolveWrite(false);
        const flushed = request.write(chunk);
        sent += chunk.length;
        if (flushed) resolveWrite(true);
        else {
          const onDrain = (): void => {
            request.off('close', onClose);
            resolveWrite(!answered);
          };
          const onClose = (): void => {
            request.off('drain', onDrain);
            resolveWrite(false);
          };
          request.once('drain', onDrain);
          request.once('close', onClose);
        }
      });

    void (async () => {
      if (!(await write(head))) return;
      const descriptor = fs.openSync(file, 'r');
      try {
        for (let position = 0; position < fileSize;) {
          const buffer = Buffer.allocUnsafe(Math.min(CHUNK, fileSize - position));
          const read = fs.readSync(descriptor, buffer, 0, buffer.length, position);
          position += read;
          if (!(await write(buffer.subarray(0, read)))) return;
        }
      } finally {
        fs.closeSync(descriptor);
      }
      const zeros = Buffer.alloc(CHUNK);
      for (let left = extraZeros; left > 0; left -= CHUNK) {
        if (!(await write(zeros.subarray(0, Math.min(CHUNK, left))))) return;
      }
      if (await write(tail)) request.end();
    })().catch(reject);
  });
}

function problemType(body: string): string {
  try {
    const parsed = JSON.parse(body) as { type?: string };
    return (parsed.type ?? '').split('/').pop() ?? '';
  } catch {
    return body.slice(0, 60);
  }
}

async function main(): Promise<void> {
  const directory = benchTempDir('upload');
  const machine = machineInfo();
  try {
    // 16 kHz mono s16 = 32,000 bytes/s; 15,624 s of pink noise is 499,968,000 bytes of PCM plus the header.
    const wav = path.join(directory, 'noise-500mb.wav');
    ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'anoisesrc=color=pink:amplitude=0.1:sample_rate=16000',
      '-t',
      '15624',
      '-ac',
      '1',
      '-c:a',
      'pcm_s16le',
      wav,
    ]);
    const wavBytes = fs.statSync(wav).size;
    if (wavBytes > LIMIT) throw new Error(`generated ${wavBytes} bytes, over the limit`);
    const loadAtStart = await waitForQuietMachine(1.5, quietWaitMs());
    const figures = await withSandbox({ LOG_LEVEL: 'warn' }, async (sandbox) => {
      const api = await sandbox.start('api');
      const url = api.url as string;
      // Warm the upload path with a small file so lazy initialisation is not counted as growth.
      const small = path.join(directory, 'small.wav');
      ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=16000', '-t', '2', '-ac', '1', small]);
      await streamUpload(url, sandbox.apiKey, small, 0, true);
      await new Promise((resolve) => setTimeout(resolve, 1000));

      const before = processMemory(api.pid);
      let peakRss = before?.rssMb ?? 0;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, processMemory(api.pid)?.rssMb ?? 0);
      }, 100);
      const accepted = await streamUpload(url, sandbox.apiKey, wav, 0, true);
      clearInterval(sampler);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = processMemory(api.pid);
      console.error(`[upload] 500 MB: ${accepted.status} in ${fixed(accepted.seconds)} s`);

      const extra = 501_000_000 - wavBytes;
      const withLength = await streamUpload(url, sandbox.apiKey, wav, extra, true);
      console.error(
        `[upload] 501 MB with Content-Length: ${JSON.stringify({ ...withLength, body: undefined })}`,
      );
      const chunked = await streamUpload(url, sandbox.apiKey, wav, extra, false);
      console.error(`[upload] 501 MB chunked: ${JSON.stringify({ ...chunked, body: undefined })}`);
      // The same without a length and 100 MB past the limit: the answer should come near 500 MB, not at the end.
      const chunkedLong = await streamUpload(url, sandbox.apiKey, wav, 600_000_000 - wavBytes, false);
      console.error(`[upload] 600 MB chunked: ${JSON.stringify({ ...chunkedLong, body: undefined })}`);
      const afterRejections = processMemory(api.pid);
      const [{ rows }] = await sandbox.query<{ rows: string }>('SELECT count(*) AS rows FROM transcriptions');
      const storedFiles = fs.readdirSync(sandbox.storage, { recursive: true }).filter((entry) => {
        const full = path.join(sandbox.storage, String(entry));
        return fs.statSync(full).isFile();
      }).length;
      return {
        wavBytes,
        before,
        peakRss,
        after,
        afterRejections,
        accepted,
        withLength,
        chunked,
        chunkedLong,
        rows,
        storedFiles,
      };
    });
    const { before, after, accepted, withLength, chunked } = figures;
    const growth = (after?.rssMb ?? NaN) - (before?.rssMb ?? NaN);
    const uploadTable = markdownTable(
      [
        'upload',
        'status',
        'time (s)',
        'MB/s',
        'API VmRSS before (MB)',
        'peak during (MB)',
        'after (MB)',
        'growth (MB)',
        'VmHWM after (MB)',
      ],
      [
        [
          `${fixed(figures.wavBytes / 1e6, 1)} MB WAV, Content-Length`,
          String(accepted.status),
          fixed(accepted.seconds, 2),
          fixed(accepted.bodyBytes / 1e6 / accepted.seconds, 0),
          fixed(before?.rssMb, 0),
          fixed(figures.peakRss, 0),
          fixed(after?.rssMb, 0),
          fixed(growth, 0),
          fixed(after?.hwmMb, 0),
        ],
      ],
    );
    const rejectTable = markdownTable(
      [
        '501 MB body',
        'status / problem',
        'body bytes sent when the answer came',
        'time to answer (s)',
        'server closed the connection',
      ],
      [
        ['501 MB, with Content-Length', withLength],
        ['501 MB, chunked (no length)', chunked],
        ['600 MB, chunked (no length)', figures.chunkedLong],
      ].map(([label, outcome]) => {
        const o = outcome as UploadOutcome;
        return [
          label as string,
          `${o.status} ${problemType(o.body)}`,
          `${o.bytesSentAtAnswer.toLocaleString('en')} of ${o.bodyBytes.toLocaleString('en')}`,
          fixed(o.seconds, 3),
          o.serverClosed ? 'yes' : 'no',
        ];
      }),
    );
    publish(
      'upload',
      `${uploadTable}\n\n${rejectTable}\n\nAfter both refusals: API VmRSS ${fixed(figures.afterRejections?.rssMb, 0)} MB; ` +
        `${figures.rows} transcription record(s) and ${figures.storedFiles} stored file(s) (a 2 s warm-up upload and the 500 MB one; nothing left by the refusals). ` +
        `Client and server on loopback; the client's socket buffers hold a few MB, so "sent" includes bytes still in ` +
        `kernel buffers. Machine: ${machine.cpus} × ${machine.cpuModel}; load average before ${loadAtStart}.`,
      { ...figures, growth, loadAtStart },
    );
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

runMain(main);
