import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toInt } from '../../config/config-transformers';

export const PROCESS_ROLES = ['all', 'api', 'worker'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

export const NODE_ENVIRONMENTS = ['production', 'development', 'test'] as const;
export type NodeEnvironment = (typeof NODE_ENVIRONMENTS)[number];

/**
 * What this process is (its role, environment and version) and how long it drains on shutdown. Property
 * names are the environment variable names.
 */
export class ProcessConfig {
  @IsIn(PROCESS_ROLES)
  ROLE: ProcessRole = 'all';

  /** production (the default) | development | test. Only development and test accept the placeholder JWT_SECRET. */
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV: NodeEnvironment = 'production';

  @IsOptional()
  @IsString()
  SERVICE_VERSION?: string;

  /**
   * On SIGTERM/SIGINT, how long a process drains before it exits (code 0): an API process answers readiness
   * 503, stops accepting connections and lets requests in flight finish; a worker stops taking jobs and lets
   * its running ones finish, then hands the unfinished ones back to the queue for another worker (uncharged).
   * Keep it below the orchestrator's kill timeout (Kubernetes: terminationGracePeriodSeconds, 30 s).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SHUTDOWN_GRACE_MS = 25_000;
}
