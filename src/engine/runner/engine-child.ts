/**
 * The engine child process: runs exactly one transcription job and exits. A native crash here (onnxruntime
 * abort, segfault in libpocketsphinx) ends only this process; the parent turns it into ENGINE_FAILED.
 * The parent starts it before the job arrives (a warm child, see engine-runner.ts): it loads what decoding
 * needs, says `ready`, and waits. Its imports are kept to decoding: the engines' factories, not their
 * descriptors and configuration slices (engine-child-imports.integration-spec.ts checks the module graph).
 */
// First: the young generation is held at its starting size while the engines load, capped once loaded
// (young-generation.ts).
import { capYoungGenerationOnceServing } from '../../common/lifecycle/hold-young-generation';
import * as path from 'node:path';
import { EngineError } from '../engine.types';
import { TranscriptionPipeline } from '../pipeline/transcription-pipeline';
import { SileroSpeechDetector } from '../speech/silero-speech-detector';
import { diarizerFactoryOf, recognizerFactoryOf } from './engine-factories';
import { isEngineJobMessage, type EngineChildMessage, type EngineJobMessage } from './engine-messages';

function send(message: EngineChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) {
      resolve();
      return;
    }
    process.send(message, undefined, {}, () => resolve());
  });
}

function sendUsage(): Promise<void> {
  const usage = process.resourceUsage();
  return send({
    type: 'usage',
    usage: { peakRssBytes: usage.maxRSS * 1024, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 },
  });
}

async function runJob({ request, settings }: EngineJobMessage): Promise<void> {
  let recognizer;
  try {
    const tier = settings.tiers[request.model];
    recognizer = recognizerFactoryOf(tier.recognizer).create(tier.recognizer.settings, {
      parallelism: settings.parallelism,
    });
    const pipeline = new TranscriptionPipeline({
      recognizer,
      speechDetector: new SileroSpeechDetector(settings.speech),
      diarizer: diarizerFactoryOf(tier.diarization).create(tier.diarization.settings),
      settings,
    });
    const result = await pipeline.run(request, {
      onProgress: (percent, stage) => void send({ type: 'progress', percent, stage }),
      onDuration: (seconds) => void send({ type: 'duration', seconds }),
      onChunk: (chunk) => void send({ type: 'chunk', chunk }),
    });
    await sendUsage();
    await send({ type: 'result', result });
  } catch (error) {
    const code = error instanceof EngineError ? error.code : 'ENGINE_FAILED';
    const message = error instanceof Error ? error.message : String(error);
    await sendUsage();
    await send({ type: 'error', error: { code, message } });
  } finally {
    await recognizer?.close();
  }
}

process.once('message', (message: unknown) => {
  if (!isEngineJobMessage(message)) {
    process.exit(2);
  }
  // Seen in `ps`: which children are working and which wait for a job (short: the title cannot outgrow argv).
  process.title = `node ${path.basename(process.argv[1] ?? 'engine-child.js')} (job)`;
  void runJob(message).finally(() => process.exit(0));
});

capYoungGenerationOnceServing();
void send({ type: 'ready' });

// An orphaned child has nobody to report to.
process.on('disconnect', () => process.exit(1));
