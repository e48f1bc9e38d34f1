import { Injectable } from '@nestjs/common';
import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import { TranscriptionEventsService } from './transcription-events.service';
import { isTerminal } from './transcription-state';
import { TranscriptionsService } from './transcriptions.service';

/** How a wait for a job's end ended. */
export type JobWaitOutcome = 'ended' | 'timeout' | 'disconnected' | 'shutdown';

/** A missed pub/sub frame (Redis hiccup) must not leave the request waiting to its deadline. */
const STATE_RECHECK_MS = 5_000;
/** On shutdown, time left before the grace deadline to write the answer while the server still answers. */
const SHUTDOWN_ANSWER_MARGIN_MS = 1_000;

/**
 * The wait of the synchronous routes (OpenAI's `audio/transcriptions`, Deepgram's `listen`) for the job they
 * started: until it is completed or failed, the deadline passes, the client goes away, or the process drains.
 * Waiting never changes the job: it goes on and is billed like any other whatever the wait's outcome.
 */
@Injectable()
export class JobEndWait {
  constructor(
    private readonly transcriptions: TranscriptionsService,
    private readonly events: TranscriptionEventsService,
    private readonly shutdown: ShutdownCoordinator,
  ) {}

  /**
   * Subscribed before the first read, so an end between the two is not missed. `closed` aborts when the
   * client goes away.
   */
  async untilEnded(
    workspaceId: string,
    id: string,
    closed: AbortSignal,
    timeoutSeconds: number,
  ): Promise<JobWaitOutcome> {
    let settle: (outcome: JobWaitOutcome) => void = () => undefined;
    const settled = new Promise<JobWaitOutcome>((resolve) => {
      settle = resolve;
    });
    const readState = async (): Promise<void> => {
      const { status } = await this.transcriptions.getState(workspaceId, id);
      if (isTerminal(status)) settle('ended');
    };
    const failed: { error?: Error } = {};
    const recheck = (): void => {
      readState().catch((error: unknown) => {
        failed.error = error instanceof Error ? error : new Error(String(error));
        settle('ended');
      });
    };
    const unsubscribe = await this.events.subscribeToState(id, (frame) => {
      if (isTerminal(frame.status)) recheck();
    });
    const onClose = (): void => settle('disconnected');
    closed.addEventListener('abort', onClose);
    const deadline = setTimeout(() => settle('timeout'), timeoutSeconds * 1000);
    const poll = setInterval(recheck, STATE_RECHECK_MS);
    // A shutdown waits for the job until shortly before the grace deadline (a worker in this process may be
    // finishing it), then answers naming the job instead of holding the drain.
    let shutdownTimer: NodeJS.Timeout | undefined;
    const stopDraining = this.shutdown.onDrain(`synchronous-transcription-${id}`, (graceDeadline) => {
      shutdownTimer = setTimeout(
        () => settle('shutdown'),
        Math.max(0, graceDeadline - Date.now() - SHUTDOWN_ANSWER_MARGIN_MS),
      );
      return settled.then(() => undefined);
    });
    try {
      if (closed.aborted) return 'disconnected';
      recheck();
      const outcome = await settled;
      if (failed.error) throw failed.error;
      return outcome;
    } finally {
      clearTimeout(deadline);
      clearInterval(poll);
      clearTimeout(shutdownTimer);
      stopDraining();
      closed.removeEventListener('abort', onClose);
      unsubscribe();
    }
  }
}

/** Aborts when the connection closes before the answer is sent (the client gave up waiting). */
export function closedSignal(response: {
  once(event: 'close', listener: () => void): unknown;
  writableFinished: boolean;
}): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
