import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { TRANSCRIPTION_QUEUE, WEBHOOK_DELIVERY_QUEUE } from './job-catalogue';

/** Bull on the shared Redis; job keys carry the instance prefix. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        redis: config.REDIS_URL,
        prefix: `${config.REDIS_PREFIX}:bull`,
        // A worker's blocking wait for new jobs; short, so shutdown does not hang on it.
        settings: { drainDelay: 1 },
      }),
    }),
    BullModule.registerQueue({ name: TRANSCRIPTION_QUEUE }, { name: WEBHOOK_DELIVERY_QUEUE }),
  ],
  exports: [BullModule],
})
export class QueuesModule {}
