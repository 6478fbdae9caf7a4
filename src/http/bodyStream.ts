import { type AppError, appError } from "../errors.js";
import type { RequestContext } from "./context.js";

/** Where a streamed body's chunks go; a throw stops the body (the request then fails with that error). */
export interface ChunkConsumer {
  write(chunk: Uint8Array): void;
  end(): void;
}

/**
 * A request body read as it arrives, for bodies too large to hold (uploads). It attaches onData at once, as
 * uWS requires, and holds the socket paused (copying any chunk already read) until pipe() names a consumer.
 * pause()/resume() throttle the client while the consumer's work lags behind.
 */
export class BodyStream {
  private held: Buffer[] | undefined = [];
  private consumer: ChunkConsumer | undefined;
  private settle: { resolve(): void; reject(err: unknown): void } | undefined;
  private lastSeen = false;
  private stopped = false;
  /** Whether this stream paused the socket: uWS's resume() on a socket nobody paused leaves the connection unable to serve its next request. */
  private paused = false;
  /** Why the body stopped early, for a pipe() that comes after. */
  private failure: unknown;
  private total = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly limit: number,
  ) {
    ctx.res.onData((chunk, isLast) => this.onChunk(chunk, isLast));
    if (ctx.contentLength !== undefined && ctx.contentLength > limit) {
      this.abandon();
      throw tooLarge(limit);
    }
    ctx.onAbort = () => this.stop(appError("validation_error", "bodyCut"));
    // An empty body is whole already: uWS may never report its end (see readBody).
    if (ctx.contentLength === 0) this.lastSeen = true;
    this.pause();
  }

  /**
   * Gives up on the rest of the body. A rest of up to DRAIN_MAX_BYTES is read and dropped, so that the client
   * (still sending) gets the answer; a larger one is cut off: the answer closes the connection.
   */
  abandon(): void {
    if (this.lastSeen || this.stopped) return;
    this.stopped = true;
    const remaining = this.ctx.contentLength === undefined ? Infinity : this.ctx.contentLength - this.total;
    this.ctx.closeAfterAnswer = remaining > DRAIN_MAX_BYTES;
    if (!this.ctx.closeAfterAnswer) this.resumeSocket();
  }

  /** Feeds the body to `consumer`; resolves once the last chunk is consumed. */
  pipe(consumer: ChunkConsumer): Promise<void> {
    if (this.stopped) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
      this.consumer = consumer;
      const held = this.held ?? [];
      this.held = undefined;
      for (const chunk of held) if (!this.consume(chunk)) return;
      if (this.lastSeen) this.finish();
      else this.resume();
    });
  }

  pause(): void {
    if (this.paused || this.ctx.aborted || this.ctx.answered || this.lastSeen) return;
    this.paused = true;
    this.ctx.res.pause();
  }

  resume(): void {
    if (!this.stopped && !this.lastSeen) this.resumeSocket();
  }

  private resumeSocket(): void {
    if (!this.paused || this.ctx.aborted || this.ctx.answered) return;
    this.paused = false;
    this.ctx.res.resume();
  }

  private onChunk(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.stopped || this.ctx.answered) return;
    this.total += chunk.byteLength;
    if (this.total > this.limit) {
      this.stop(tooLarge(this.limit));
      return;
    }
    if (isLast) this.lastChunk();
    if (this.held) {
      // uWS reuses the chunk's memory after this callback: keep a copy until there is a consumer.
      this.held.push(Buffer.from(chunk.slice(0)));
      return;
    }
    if (this.consume(new Uint8Array(chunk)) && isLast) this.finish();
  }

  /** The body is in: the connection may serve the next request once this one is answered. */
  private lastChunk(): void {
    this.lastSeen = true;
    this.resumeSocket();
  }

  private consume(chunk: Uint8Array): boolean {
    try {
      this.consumer!.write(chunk);
      return true;
    } catch (err) {
      this.stop(err);
      return false;
    }
  }

  private finish(): void {
    try {
      this.consumer!.end();
    } catch (err) {
      this.stop(err);
      return;
    }
    this.stopped = true;
    this.settle?.resolve();
  }

  /** Ends the body early with an error, which pipe() reports. */
  private stop(err: unknown): void {
    if (this.stopped) return;
    this.abandon();
    this.stopped = true;
    this.failure = err;
    this.settle?.reject(err);
  }
}

/** The most of an abandoned body read (and dropped) rather than cut off. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

function tooLarge(limit: number): AppError {
  return appError("payload_too_large", "upload", { max: limit });
}
