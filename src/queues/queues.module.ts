import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { QueuesConfig } from './queues.config';
import { RedisConfig } from '../common/redis/redis.config';
import { redisConnectionOptions } from '../common/redis/redis-connection';
import { TRANSCRIPTION_QUEUE, WEBHOOK_DELIVERY_QUEUE } from './job-catalogue';

/** Bull on the shared Redis; job keys carry the instance prefix. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [RedisConfig, QueuesConfig],
      useFactory: (redis: RedisConfig, config: QueuesConfig) => ({
        // Bull's three clients per queue (commands, blocking wait, events) connect like every other client:
        // sentinels, TLS, reconnection (redis-connection.ts).
        redis: redisConnectionOptions(redis),
        prefix: `${redis.REDIS_PREFIX}:bull`,
        settings: {
          // A worker's blocking wait for new jobs; short, so shutdown does not hang on it.
          drainDelay: 1,
          // Engines run in child processes, so a worker's event loop always renews its locks in time; a
          // short lock lets a job of a killed worker be taken over within one to two lock periods.
          lockDuration: config.JOB_LOCK_SECONDS * 1000,
          stalledInterval: config.JOB_LOCK_SECONDS * 1000,
        },
      }),
    }),
    BullModule.registerQueue({ name: TRANSCRIPTION_QUEUE }, { name: WEBHOOK_DELIVERY_QUEUE }),
  ],
  exports: [BullModule],
})
export class QueuesModule {}
