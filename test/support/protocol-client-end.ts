import { EventEmitter } from 'node:events';

/**
 * The client's end of a WebSocket, for the unit tests of the realtime protocol layers (Deepgram, AssemblyAI):
 * what the layer wrote to it, and the close it got.
 */
export class ClientEnd extends EventEmitter {
  readyState = 1;
  readonly written: Array<Record<string, unknown>> = [];
  closedWith: [number, string] | null = null;
  send(text: string, done?: () => void): void {
    this.written.push(JSON.parse(text) as Record<string, unknown>);
    done?.();
  }
  close(code: number, reason: string): void {
    this.closedWith = [code, reason];
    this.readyState = 3;
  }
  pause(): void {}
  resume(): void {}
}
