// Checks the image's ffmpeg/ffprobe against the machine's (Debian's) on every media file given: used by
// scripts/test-container.sh, which generates the set, runs `reference` on the host and `check` in the image.
//
//   node scripts/container-media-check.cjs reference ROOT > reference.jsonl     (host: Debian's ffmpeg)
//   node /check/container-media-check.cjs check /media reference.jsonl /app/dist  (in the image)
//
// Both modes run the same plain command lines (ffprobe's JSON; a decode of the first audio stream to 16 kHz
// mono s16le, hashed). `check` also runs the service's own code from dist/ on each file: probeMedia,
// measureMediaDuration, decodePcmStream (the mix, and channel 1 of a multichannel file: the pan filter) and
// the redaction's ffmpeg arguments (aeval, FLAC). A file Debian's ffprobe cannot read must fail in the image
// too; every other one must give the same container, codec, streams and the same decoded samples, bit for bit.
'use strict';
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { readdirSync, readFileSync, statSync, mkdtempSync, rmSync } = require('node:fs');
const { join, relative } = require('node:path');
const { tmpdir } = require('node:os');

const MEDIA = /\.(wav|mp3|flac|ogg|oga|opus|m4a|mp4|m4v|aac|mkv|webm|mov)$/i;

function mediaFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (MEDIA.test(name)) found.push(path);
    }
  };
  walk(root);
  return found;
}

function run(command, args) {
  return spawnSync(command, args, { maxBuffer: 1024 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The plain command lines, the same on the host and in the image. */
function plain(path) {
  // probeMedia's command line (media-probe.ts); its duration is null when ffprobe only estimates it.
  const probe = run('ffprobe', [
    '-v',
    'warning',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    '--',
    path,
  ]);
  if (probe.status !== 0) return { probe: { ok: false } };
  const parsed = JSON.parse(probe.stdout.toString('utf8'));
  const audio = (parsed.streams ?? []).filter((s) => s.codec_type === 'audio');
  const decode = run('ffmpeg', [
    ...['-nostdin', '-v', 'error', '-i', path, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '16000'],
    ...['-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'],
  ]);
  // measureMediaDuration's command line (media-probe.ts): packet timestamps, copied to the null muxer.
  const measure = run('ffmpeg', [
    ...['-hide_banner', '-nostdin', '-nostats', '-v', 'error', '-i', path],
    ...['-map', '0:a:0', '-c', 'copy', '-f', 'null', '-progress', 'pipe:1', '-'],
  ]);
  const times = [...measure.stdout.toString('utf8').matchAll(/^out_time_us=(\d+)$/gm)];
  return {
    measured: measure.status === 0 && times.length > 0 ? Number(times.at(-1)[1]) / 1e6 : null,
    probe: {
      ok: true,
      formatName: parsed.format?.format_name ?? null,
      streams: (parsed.streams ?? []).map((s) => `${s.codec_type}:${s.codec_name}`).join(','),
      audioCodec: audio[0]?.codec_name ?? null,
      channels: audio[0]?.channels ?? null,
      duration: probe.stderr.toString('utf8').includes('Estimating duration from bitrate')
        ? null
        : (parsed.format?.duration ?? null),
    },
    pcm:
      decode.status === 0
        ? {
            ok: true,
            bytes: decode.stdout.length,
            md5: createHash('md5').update(decode.stdout).digest('hex'),
          }
        : { ok: false, error: decode.stderr.toString('utf8').trim().split('\n').at(-1) },
  };
}

async function serviceRun(dist, path, channels) {
  const { probeMedia, measureMediaDuration } = require(join(dist, 'engine/audio/media-probe.js'));
  const { decodePcmStream } = require(join(dist, 'engine/audio/ffmpeg-decoder.js'));
  const { runProcess } = require(join(dist, 'engine/audio/process-output.util.js'));
  const { silencingArguments } = require(join(dist, 'transcriptions/audio/audio-redaction.service.js'));
  const probe = await probeMedia(path);
  const measured = await measureMediaDuration(path);
  const count = async (options) => {
    let samples = 0;
    for await (const block of decodePcmStream(path, options)) samples += block.length;
    return samples;
  };
  const samples = await count({});
  const channelSamples = channels > 1 ? await count({ channel: 1 }) : null;
  const dir = mkdtempSync(join(tmpdir(), 'media-check-'));
  try {
    const output = join(dir, 'redacted.flac');
    const redaction = await runProcess(
      'ffmpeg',
      silencingArguments(path, [{ start: 0.2, end: 0.5 }], output),
    );
    if (redaction.exitCode !== 0) throw new Error(`redaction: ${redaction.stderr.trim().split('\n').at(-1)}`);
    const redacted = await probeMedia(output);
    if (redacted.formatName !== 'flac' || redacted.audioCodec !== 'flac')
      throw new Error('redaction: not FLAC');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { probe, measured, samples, channelSamples };
}

async function check(root, referenceFile, dist) {
  const reference = readFileSync(referenceFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const failures = [];
  const kinds = new Set();
  for (const expected of reference) {
    const path = join(root, expected.file);
    const got = plain(path);
    const problems = [];
    let summary;
    if (!expected.probe.ok) {
      if (got.probe.ok) problems.push('Debian ffprobe rejects it, the image reads it');
      let error = null;
      try {
        await serviceRun(dist, path, 1);
      } catch (e) {
        error = e;
      }
      if (!error || error.code !== 'DECODE_FAILED')
        problems.push(`service: expected DECODE_FAILED, got ${error?.message ?? 'success'}`);
      summary = 'unreadable in both (DECODE_FAILED)';
    } else {
      for (const key of ['ok', 'formatName', 'streams', 'audioCodec', 'channels', 'duration'])
        if (got.probe[key] !== expected.probe[key])
          problems.push(`ffprobe ${key}: ${got.probe[key]} (Debian: ${expected.probe[key]})`);
      if (got.measured !== expected.measured)
        problems.push(`measured duration ${got.measured} (Debian: ${expected.measured})`);
      if (!expected.pcm.ok) {
        // Debian's ffmpeg cannot decode it either (9 channels have no layout to mix down from): the same
        // refusal, and the service's DECODE_FAILED.
        if (got.pcm.ok)
          problems.push(`Debian's ffmpeg fails to decode it (${expected.pcm.error}), the image decodes it`);
        let error = null;
        try {
          for await (const block of require(join(dist, 'engine/audio/ffmpeg-decoder.js')).decodePcmStream(
            path,
          ))
            void block;
        } catch (e) {
          error = e;
        }
        if (!error || error.code !== 'DECODE_FAILED')
          problems.push(`service decode: expected DECODE_FAILED, got ${error?.message ?? 'success'}`);
        summary = `${got.probe.formatName} ${expected.probe.streams}, ${expected.probe.channels} channels: probed; mixing down fails in both (DECODE_FAILED)`;
      } else {
        if (!got.pcm.ok) problems.push(`decode failed: ${got.pcm.error}`);
        else if (got.pcm.md5 !== expected.pcm.md5 || got.pcm.bytes !== expected.pcm.bytes)
          problems.push(
            `decoded samples differ from Debian's (${got.pcm.bytes} vs ${expected.pcm.bytes} bytes)`,
          );
        try {
          const s = await serviceRun(dist, path, got.probe.channels ?? 1);
          const seconds = s.samples / 16000;
          if (s.samples * 2 !== expected.pcm.bytes)
            problems.push(`service decode: ${s.samples} samples, plain: ${expected.pcm.bytes / 2}`);
          if (s.channelSamples !== null && s.channelSamples !== s.samples)
            problems.push(`channel 1: ${s.channelSamples} samples`);
          if (s.measured !== expected.measured)
            problems.push(`service's measured duration ${s.measured} (Debian: ${expected.measured})`);
          // The duration the upload gates use: the container's, else the measured one.
          const duration = s.probe.durationSeconds ?? s.measured;
          if (duration === null || Math.abs(duration - seconds) > 0.25)
            problems.push(
              `duration ${s.probe.durationSeconds} (probed) / ${s.measured} (measured) vs ${seconds} s decoded`,
            );
          summary =
            `${s.probe.formatName} ${expected.probe.streams} ${seconds.toFixed(2)} s` +
            `${s.probe.durationSeconds === null ? ` (no stated duration; measured ${s.measured} s)` : ''}` +
            `${s.channelSamples !== null ? `, channel 1 of ${got.probe.channels}` : ''}`;
          kinds.add(`${s.probe.formatName.split(',')[0]}/${expected.probe.audioCodec}`);
        } catch (e) {
          problems.push(`service: ${e.message}`);
        }
      }
    }
    console.log(
      `${problems.length ? 'FAIL' : 'ok  '} ${expected.file}: ${problems.length ? problems.join('; ') : summary}`,
    );
    if (problems.length) failures.push(expected.file);
  }
  console.log(
    `${reference.length - failures.length}/${reference.length} files as Debian's ffmpeg decodes them; container/codec: ${[...kinds].sort().join(' ')}`,
  );
  if (failures.length) process.exit(1);
}

const [mode, root, ...rest] = process.argv.slice(2);
if (mode === 'reference') {
  for (const path of mediaFiles(root))
    console.log(JSON.stringify({ file: relative(root, path), ...plain(path) }));
} else if (mode === 'check') {
  check(root, rest[0], rest[1] ?? '/app/dist').catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  console.error('usage: container-media-check.cjs reference ROOT | check ROOT REFERENCE.jsonl [DIST]');
  process.exit(2);
}
