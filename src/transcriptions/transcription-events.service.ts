import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { InjectRedis } from '../common/redis/redis.module';
import { RedisConfig } from '../common/redis/redis.config';
import type { TranscriptionStatus } from './transcription.entity';

export interface TranscriptionStateFrame {
  status: TranscriptionStatus;
  progress: number;
}

type Listener = (frame: TranscriptionStateFrame) => void;

/**
 * Status/progress changes travel through Redis pub/sub, so an SSE stream on any API process sees a job
 * running in any worker process. One subscriber connection per process fans out to every open stream.
 */
@Injectable()
export class TranscriptionEventsService implements OnModuleDestroy {
  private readonly logger = new Logger(TranscriptionEventsService.name);
  private subscriber: Promise<Redis> | null = null;
  private readonly channels = new Map<
    string,
    { listeners: Set<(message: string) => void>; ready: Promise<void> }
  >();

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: RedisConfig,
  ) {}

  async publish(transcriptionId: string, frame: TranscriptionStateFrame): Promise<void> {
    await this.redis.publish(this.channel(transcriptionId), JSON.stringify(frame)).catch((error: Error) => {
      this.logger.warn(`Could not publish state of ${transcriptionId}: ${error.message}`);
    });
  }

  /** Resolves once the subscription is active, so no change after it can be missed. */
  subscribeToState(transcriptionId: string, listener: Listener): Promise<() => void> {
    return this.subscribe(this.channel(transcriptionId), (message) =>
      listener(JSON.parse(message) as TranscriptionStateFrame),
    );
  }

  /** Asks whichever worker runs the job to stop it (the transcription was deleted). */
  async publishCancel(transcriptionId: string): Promise<void> {
    await this.redis.publish(this.cancelChannel(), transcriptionId).catch((error: Error) => {
      this.logger.warn(`Could not publish cancel of ${transcriptionId}: ${error.message}`);
    });
  }

  async onCancel(listener: (transcriptionId: string) => void): Promise<void> {
    await this.subscribe(this.cancelChannel(), listener);
  }

  async onModuleDestroy(): Promise<void> {
    const subscriber = await this.subscriber?.catch(() => null);
    await subscriber?.quit().catch(() => subscriber.disconnect());
  }

  private async subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    const subscriber = await this.connectedSubscriber();
    let entry = this.channels.get(channel);
    if (!entry) {
      const ready = subscriber.subscribe(channel).then(() => undefined);
      entry = { listeners: new Set(), ready };
      this.channels.set(channel, entry);
      ready.catch(() => this.channels.delete(channel));
    }
    entry.listeners.add(listener);
    try {
      await entry.ready;
    } catch (error) {
      entry.listeners.delete(listener);
      throw error;
    }
    const subscribed = entry;
    return () => {
      subscribed.listeners.delete(listener);
      if (subscribed.listeners.size === 0 && this.channels.get(channel) === subscribed) {
        this.channels.delete(channel);
        void subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  /**
   * One subscriber connection per process, connected before its first SUBSCRIBE: ioredis may otherwise
   * send SUBSCRIBE ahead of its own connection check, which Redis refuses in subscriber mode.
   */
  private connectedSubscriber(): Promise<Redis> {
    if (!this.subscriber) {
      const connecting = (async () => {
        const subscriber = this.redis.duplicate({ lazyConnect: true });
        subscriber.on('message', (channel: string, message: string) => {
          for (const listener of this.channels.get(channel)?.listeners ?? []) listener(message);
        });
        await subscriber.connect();
        return subscriber;
      })();
      connecting.catch(() => {
        if (this.subscriber === connecting) this.subscriber = null;
      });
      this.subscriber = connecting;
    }
    return this.subscriber;
  }

  private cancelChannel(): string {
    return `${this.config.REDIS_PREFIX}:transcription-cancel`;
  }

  private channel(transcriptionId: string): string {
    return `${this.config.REDIS_PREFIX}:transcription-state:${transcriptionId}`;
  }
}
