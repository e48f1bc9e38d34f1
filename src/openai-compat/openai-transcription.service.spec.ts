import type { Request } from 'express';
import type { Principal } from '../common/principal/principal';
import { ShutdownCoordinator } from '../common/lifecycle/shutdown-coordinator';
import type { ProcessConfig } from '../common/lifecycle/process.config';
import type {
  TranscriptionEventsService,
  TranscriptionStateFrame,
} from '../transcriptions/transcription-events.service';
import type { Transcription, TranscriptionStatus } from '../transcriptions/transcription.entity';
import type { TranscriptionsService } from '../transcriptions/transcriptions.service';
import type {
  TranscriptionUploadService,
  UploadRoute,
} from '../transcriptions/upload/transcription-upload.service';
import { JobEndWait } from '../transcriptions/job-end-wait';
import { OpenAiApiError } from './openai-error';
import { OpenAiTranscriptionService } from './openai-transcription.service';

const JOB_ID = '0b7b8f5e-6f7e-4d53-9a53-0f5d1f4d2c11';

/** The wait around a created job: the intake, the job store and the event bus are in-memory stand-ins. */
function harness() {
  const state: { status: TranscriptionStatus } = { status: 'processing' };
  let listener: ((frame: TranscriptionStateFrame) => void) | null = null;
  const unsubscribed = jest.fn();
  const uploads = {
    admit: async <Asked>(_principal: Principal, _request: Request, route: UploadRoute<Asked>) => {
      const { asked } = await route.readFields({ model: 'whisper-1' }, null);
      route.checkDuration(3);
      return {
        transcriptionId: JOB_ID,
        reply: { status: 202, contentType: 'application/json', body: '' },
        asked,
      };
    },
  } as unknown as TranscriptionUploadService;
  const transcriptions = {
    getState: async () => ({ status: state.status, progress: 0 }),
    get: async () =>
      ({
        id: JOB_ID,
        status: state.status,
        resultText: 'go forward',
        errorMessage: 'no audio',
      }) as Transcription,
  } as unknown as TranscriptionsService;
  const events = {
    subscribeToState: async (_id: string, next: (frame: TranscriptionStateFrame) => void) => {
      listener = next;
      return unsubscribed;
    },
  } as unknown as TranscriptionEventsService;
  const config = {
    OPENAI_SYNC_WAIT_TIMEOUT_SECONDS: 60,
    OPENAI_SYNC_MAX_DURATION_SECONDS: 600,
  };
  const shutdown = new ShutdownCoordinator({ SHUTDOWN_GRACE_MS: 10_000 } as ProcessConfig);
  const wait = new JobEndWait(transcriptions, events, shutdown);
  const service = new OpenAiTranscriptionService(uploads, transcriptions, wait, config);
  const closed = new AbortController();
  const principal = { workspaceId: 'w' } as Principal;
  return {
    state,
    unsubscribed,
    closed,
    shutdown,
    transcribe: () => service.transcribe(principal, { headers: {} } as Request, closed.signal),
    publish: (status: TranscriptionStatus) => {
      state.status = status;
      listener?.({ status, progress: 100 });
    },
  };
}

describe('OpenAiTranscriptionService wait', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('answers once the job’s state event says it completed', async () => {
    const h = harness();
    const answer = h.transcribe();
    await jest.advanceTimersByTimeAsync(1_000);
    h.publish('completed');
    await expect(answer).resolves.toEqual({
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ text: 'go forward' }),
    });
    expect(h.unsubscribed).toHaveBeenCalled();
  });

  it('finds the end by re-reading the state when an event was missed', async () => {
    const h = harness();
    const answer = h.transcribe();
    await jest.advanceTimersByTimeAsync(1_000);
    h.state.status = 'completed';
    await jest.advanceTimersByTimeAsync(5_000);
    await expect(answer).resolves.toMatchObject({ body: JSON.stringify({ text: 'go forward' }) });
  });

  it('answers 504 naming the job when the deadline passes, and tells the SDK not to retry', async () => {
    const h = harness();
    const answer = h.transcribe().catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(60_000);
    const error = (await answer) as OpenAiApiError;
    expect(error).toBeInstanceOf(OpenAiApiError);
    expect(error).toMatchObject({ status: 504, type: 'server_error', code: 'timeout' });
    expect(error.message).toContain(`/v1/transcriptions/${JOB_ID}`);
    expect(error.headers).toEqual({ 'x-should-retry': 'false' });
    expect(h.unsubscribed).toHaveBeenCalled();
  });

  it('stops waiting (nothing to send) when the client disconnects; the job is left to run', async () => {
    const h = harness();
    const answer = h.transcribe();
    await jest.advanceTimersByTimeAsync(1_000);
    h.closed.abort();
    await expect(answer).resolves.toBeNull();
    expect(h.unsubscribed).toHaveBeenCalled();
  });

  it('answers a failed job as 500 transcription_failed with its reason', async () => {
    const h = harness();
    const answer = h.transcribe().catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(1_000);
    h.publish('failed');
    await expect(answer).resolves.toMatchObject({ status: 500, code: 'transcription_failed' });
    expect(((await answer) as OpenAiApiError).message).toContain('no audio');
  });

  it('on shutdown waits for the job until shortly before the grace deadline, then answers 503 naming it', async () => {
    const h = harness();
    const answer = h.transcribe().catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(1_000);
    const drained = h.shutdown.drain('SIGTERM');
    await jest.advanceTimersByTimeAsync(8_000);
    let settled = false;
    void answer.then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1_000);
    const error = (await answer) as OpenAiApiError;
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(error.message).toContain(`/v1/transcriptions/${JOB_ID}`);
    await drained;
  });

  it('answers normally when the job ends during a shutdown', async () => {
    const h = harness();
    const answer = h.transcribe();
    await jest.advanceTimersByTimeAsync(1_000);
    const drained = h.shutdown.drain('SIGTERM');
    await jest.advanceTimersByTimeAsync(2_000);
    h.publish('completed');
    await expect(answer).resolves.toMatchObject({ body: JSON.stringify({ text: 'go forward' }) });
    await drained;
  });
});
