import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../config/config-transformers';

/**
 * The worker side of the job queues: how many jobs a worker runs and how long it holds one. Property names
 * are the environment variable names.
 */
export class QueuesConfig {
  @Transform(toInt)
  @IsInt()
  @Min(1)
  WORKER_CONCURRENCY = 1;

  /**
   * How long a worker's hold on a running job lasts without renewal (renewed every half of it while the job
   * runs). A killed worker's job goes back to the queue once its hold lapses and the next stalled-job check
   * (same period) sees it: within one to two periods. Engines run in child processes, so the worker's event
   * loop renews in time even on a busy machine; every process of a deployment should use the same value.
   */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(300)
  JOB_LOCK_SECONDS = 15;
}
