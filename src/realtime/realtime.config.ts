import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/**
 * Realtime transcription sessions (WebSocket /v1/realtime). Property names are the environment variable
 * names.
 */
export class RealtimeConfig {
  /** Realtime transcription sessions (WebSocket /v1/realtime) open at once per workspace, across instances. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  REALTIME_MAX_SESSIONS_PER_WORKSPACE = 4;

  /**
   * Realtime sessions one API process serves at once (each decodes on its own thread). Unset: two per CPU core,
   * the load measured to stay in real time (docs/benchmarks.md). Over it a new session is refused at open.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  REALTIME_MAX_SESSIONS?: number;

  /** A realtime session is closed (and its transcription completed) after this much audio. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(12 * 3600)
  REALTIME_MAX_SESSION_SECONDS = 3600;

  /** A realtime session that receives no audio for this long is closed. */
  @Transform(toInt)
  @IsInt()
  @Min(500)
  @Max(3_600_000)
  REALTIME_IDLE_TIMEOUT_MS = 30_000;

  /** The largest WebSocket message a realtime session accepts (a base64 audio append is 4/3 of its audio). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  REALTIME_MAX_MESSAGE_BYTES = 1024 * 1024;

  /**
   * How far recognition may fall behind the audio received (seconds of audio not yet decoded) before the
   * session is told and closed, keeping what was recognised. Bounds the audio a session buffers.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  REALTIME_MAX_LAG_SECONDS = 30;

  /**
   * How long a realtime session's transcription stays claimed without renewal (the serving process renews it
   * every third of this). After a crash, the reconciler fails the session once this has passed.
   */
  @Transform(toInt)
  @IsInt()
  @Min(3)
  @Max(3600)
  REALTIME_SESSION_LEASE_SECONDS = 60;
}
