import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { InjectRedis } from '../common/redis/redis.module';
import { AppConfig } from '../config/app-config';
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
  private subscriber: Redis | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly rawChannels: Record<string, boolean> = {};

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  async publish(transcriptionId: string, frame: TranscriptionStateFrame): Promise<void> {
    await this.redis.publish(this.channel(transcriptionId), JSON.stringify(frame)).catch((error: Error) => {
      this.logger.warn(`Could not publish state of ${transcriptionId}: ${error.message}`);
    });
  }

  /** Resolves once the subscription is active, so no change after it can be missed. */
  subscribeToState(transcriptionId: string, listener: Listener): Promise<() => void> {
    return this.subscribe(this.channel(transcriptionId), listener, false);
  }

  private async subscribe(channel: string, listener: Listener, raw: boolean): Promise<() => void> {
    this.rawChannels[channel] = raw;
    const subscriber = this.ensureSubscriber();
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await subscriber.subscribe(channel);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(channel);
      current?.delete(listener);
      if (current && current.size === 0) {
        this.listeners.delete(channel);
        void subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  private ensureSubscriber(): Redis {
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      this.subscriber.on('message', (channel: string, message: string) => {
        const frame = (this.rawChannels[channel] ? message : JSON.parse(message)) as TranscriptionStateFrame;
        for (const listener of this.listeners.get(channel) ?? []) listener(frame);
      });
    }
    return this.subscriber;
  }

  /** Asks whichever worker runs the job to stop it (the transcription was deleted). */
  async publishCancel(transcriptionId: string): Promise<void> {
    await this.redis.publish(this.cancelChannel(), transcriptionId).catch((error: Error) => {
      this.logger.warn(`Could not publish cancel of ${transcriptionId}: ${error.message}`);
    });
  }

  async onCancel(listener: (transcriptionId: string) => void): Promise<void> {
    const channel = this.cancelChannel();
    await this.subscribe(channel, (frame) => listener(frame as unknown as string), true);
  }

  private cancelChannel(): string {
    return `${this.config.REDIS_PREFIX}:transcription-cancel`;
  }

  private channel(transcriptionId: string): string {
    return `${this.config.REDIS_PREFIX}:transcription-state:${transcriptionId}`;
  }
}
