/** How the session stops and restarts reading its socket (ws: `pause()` / `resume()` on the TCP stream). */
export interface ReadControl {
  pause(): void;
  resume(): void;
}

/**
 * The bytes a session's socket holds in the API process that the session has not dealt with yet: messages
 * received and waiting to be handled (messages are handled one at a time, in order, and a `session.update` or
 * the session's open waits for the database), and server events queued for a client that does not read them.
 * Above `maxPendingBytes` the socket is no longer read, so the client's further messages wait in its own
 * TCP buffers (and its own memory), not in ours; reading resumes once the session is back under the bound.
 * Pausing rather than closing: a client that bursts while its session opens is slowed down, not cut off.
 */
export class SocketBackpressure {
  private unhandled = 0;
  private unsent = 0;
  private paused = false;
  private stopped = false;

  constructor(
    private readonly maxPendingBytes: number,
    private readonly reads: ReadControl,
  ) {}

  /** Bytes received and not yet handled, plus bytes sent and not yet written to the socket. */
  get pendingBytes(): number {
    return this.unhandled + this.unsent;
  }

  get readingPaused(): boolean {
    return this.paused;
  }

  received(bytes: number): void {
    this.unhandled += bytes;
    this.update();
  }

  handled(bytes: number): void {
    this.unhandled -= bytes;
    this.update();
  }

  sending(bytes: number): void {
    this.unsent += bytes;
    this.update();
  }

  sent(bytes: number): void {
    this.unsent -= bytes;
    this.update();
  }

  /**
   * The session ends: nothing more it reads would be taken, so it reads nothing more (a client flooding an
   * ending session fills its own buffers, not this process's memory).
   */
  stop(): void {
    if (!this.paused) this.reads.pause();
    this.paused = true;
    this.stopped = true;
  }

  private update(): void {
    if (this.stopped) return;
    const over = this.pendingBytes > this.maxPendingBytes;
    if (over === this.paused) return;
    this.paused = over;
    if (over) this.reads.pause();
    else this.reads.resume();
  }
}
