import { writeFileSync } from 'node:fs';
import { generatedCases } from './cases-generated';
import { genericCases } from './cases-generic';
import { sessionCases } from './cases-session';
import { systemAndAccountCases } from './cases-account';
import { deepgramCases, openAiCases, transcriptionCases } from './cases-transcriptions';
import { vocabularyCases } from './cases-vocabularies';
import { webhookCases } from './cases-webhooks';
import type { RunnerOptions } from './options';
import { coverage, junitXml, summary } from './report';
import { RunContext } from './run-context';
import { newRunState } from './run-state';
import { WebhookReceiver } from './webhook-receiver';

/**
 * One run: the stateful chains (each creates what the next needs), the cases every operation gets from the
 * contract, the generated requests, then the clean-up of everything created (also after SIGINT/SIGTERM).
 * Resolves with the process exit code: 0 when nothing mismatched, 1 otherwise.
 */
export async function runContract(options: RunnerOptions, out: (text: string) => void): Promise<number> {
  const run = new RunContext(options);
  const state = newRunState();
  out(
    `stt-contract against ${options.baseUrl}: mode ${options.mode}${options.noJobs ? ', no jobs' : ''}; ` +
      `seed ${options.seed} (replay with --seed ${options.seed}); objects tagged ${state.tag}\n`,
  );
  if (options.webhookListen !== undefined && options.webhookPublicUrl !== undefined) {
    state.receiver = new WebhookReceiver(options.webhookListen, options.webhookPublicUrl);
    await state.receiver.start();
  } else if (isLoopback(options.baseUrl)) {
    state.receiver = await WebhookReceiver.loopback(state.tag);
    state.ownReceiver = true;
    out(
      `Webhook deliveries go to the run's own receiver at ${state.receiver.publicUrl} (the service is on this ` +
        'machine; when it refuses private webhook targets, a placeholder endpoint is used instead).\n',
    );
  } else {
    out(
      'Webhook deliveries are not received (no --webhook-listen/--webhook-public-url): those cases are skipped.\n',
    );
  }

  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = signal;
    out(`\n${signal}: stopping, then removing what the run created…\n`);
    run.abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (const group of [
      systemAndAccountCases,
      sessionCases,
      vocabularyCases,
      webhookCases,
      transcriptionCases,
      openAiCases,
      deepgramCases,
      genericCases,
      generatedCases,
    ]) {
      if (run.abort.signal.aborted) break;
      await group(run, state);
    }
  } finally {
    await run.cleanup();
    await state.receiver?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const rows = coverage(run);
  out(`${summary(run, rows)}\n`);
  if (options.junit) writeFileSync(options.junit, junitXml(run, rows));
  if (interrupted) return interrupted === 'SIGINT' ? 130 : 143;
  return run.results.some((result) => result.outcome === 'failed') ? 1 : 0;
}

/** Whether the base URL names this machine (localhost, 127.0.0.0/8, ::1): then a loopback receiver can be reached. */
export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1'
  );
}
