import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';
import { toInt, toList } from '../config/config-transformers';

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
   * Realtime sessions one API process serves at once (each decodes on its own thread). Unset: what the cores
   * sustain at the cost the process measures its sessions at on this machine (LiveCapacityMeter; 4 on 2 cores
   * until measured), and none while one is behind real time. Over it a new session is refused at open.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  REALTIME_MAX_SESSIONS?: number;

  /**
   * Of this process's sessions (REALTIME_MAX_SESSIONS), how many one workspace may hold, so that one tenant
   * cannot make every other one get `server_busy`. Unset: half the capacity, at least 1 (2 of 4).
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  REALTIME_MAX_PROCESS_SESSIONS_PER_WORKSPACE?: number;

  /** A realtime session is closed (and its transcription completed) after this much audio. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(12 * 3600)
  REALTIME_MAX_SESSION_SECONDS = 3600;

  /**
   * A realtime session is closed (and its transcription completed) this long after it opened, whatever audio it
   * received (`session_expired`, as OpenAI's 60-minute limit): a slot of the process's capacity is never held
   * indefinitely.
   */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(12 * 3600)
  REALTIME_MAX_SESSION_WALL_SECONDS = 3600;

  /**
   * A realtime session in which no speech is heard for this long is closed: speech as the server's VAD finds it
   * (with `turn_detection: null`, words the decoder recognises), so appends of silence or of a few
   * milliseconds do not keep a session, and a slot of the process's capacity, alive.
   */
  @Transform(toInt)
  @IsInt()
  @Min(500)
  @Max(3_600_000)
  REALTIME_IDLE_TIMEOUT_MS = 30_000;

  /**
   * Bytes a realtime session may hold received but not yet handled, plus server events not yet written to a
   * client that does not read them: above it the session's socket is no longer read (TCP back-pressure) until
   * it is back within.
   */
  @Transform(toInt)
  @IsInt()
  @Min(64 * 1024)
  @Max(64 * 1024 * 1024)
  REALTIME_MAX_PENDING_BYTES = 2 * 1024 * 1024;

  /** The largest WebSocket message a realtime session accepts (a base64 audio append is 4/3 of its audio). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  REALTIME_MAX_MESSAGE_BYTES = 1024 * 1024;

  /**
   * How far recognition may fall behind real time (seconds: the time since the session's decoder last caught
   * up, minus the audio it decoded since) before the session is told and closed, keeping what was recognised.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  REALTIME_MAX_LAG_SECONDS = 10;

  /**
   * How much audio a realtime session holds received but not yet decoded (seconds): a client may send faster
   * than real time up to this; an append beyond it is refused, the client told, and the session closed with
   * what was recognised kept.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REALTIME_MAX_BUFFER_SECONDS = 60;

  /**
   * How long a realtime session's transcription stays claimed without renewal (the serving process renews it
   * every third of this). After a crash, the reconciler fails the session once this has passed.
   */
  @Transform(toInt)
  @IsInt()
  @Min(3)
  @Max(3600)
  REALTIME_SESSION_LEASE_SECONDS = 60;

  /**
   * How often (ms) an open realtime session checks that the credential it stands on still does: the API key
   * (not revoked or expired), the dashboard sign-in (not signed out, no new password, the user still in the
   * workspace), or the credential that minted its client secret. When it has ended the session ends at the next
   * check (`credential_ended`), delivering nothing more; what it delivered is paid.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  REALTIME_CREDENTIAL_CHECK_MS = 1000;

  /**
   * How much audio (seconds, at the session's tier price) a paid realtime session reserves against the balance
   * ahead of what it received: at open, and again each time half of it is left. A session holds at most this
   * much beyond its audio, so one session does not lock a whole balance, and two cannot spend the same euro;
   * when no more can be reserved it ends `insufficient_balance` with what it received charged.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REALTIME_RESERVATION_SECONDS = 60;

  /**
   * Origins besides the service's own whose pages may open a realtime session with the dashboard's session
   * cookie (comma-separated, e.g. `https://app.example`). A WebSocket is not subject to CORS: a page of any
   * other origin sending the cookie is refused (403 before the upgrade), so no other site acts as the user.
   */
  @Transform(toList)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { each: true })
  REALTIME_COOKIE_ORIGINS: string[] = [];

  /**
   * Client secrets (POST /v1/realtime/client_secrets) a workspace may hold unused and unexpired at once; one
   * more is refused (429 `client-secret-limit`, `Retry-After` until the first of them expires). Each secret is
   * a bearer credential for a session of the workspace: minting them in bulk must not be free.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  REALTIME_CLIENT_SECRETS_MAX_PER_WORKSPACE = 100;
}
