import type { RawData } from 'ws';

/** A WebSocket text message as a string, whichever form `ws` hands it over in (Buffer, fragments, ArrayBuffer). */
export function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}
