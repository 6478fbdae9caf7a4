import type { RecordParser } from "./parser.js";

/** Bytes of body parsed in one turn of the event loop: other requests are served between two slices. */
const SLICE_BYTES = 64 * 1024;
/** Bytes of body waiting to be parsed past which the socket is paused. */
const BACKLOG_BYTES = 1024 * 1024;

/** The socket's flow control (src/http/bodyStream.ts). */
export interface Flow {
  pause(): void;
  resume(): void;
}

/**
 * Between the socket and the parser: chunks are copied as they arrive and parsed a slice at a time, one slice
 * per event-loop turn, so that an upload never holds the front thread for longer than one slice (plus the one
 * record that slice completes, at most MAX_RECORD_BYTES). The socket is paused while the backlog is large or
 * while the upload's commits lag (`pause()`/`resume()`, from the UploadStream).
 */
export class UploadFeed implements Flow {
  private readonly decoder = new TextDecoder();
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  private ended = false;
  private lagging = false;
  private socketPaused = false;
  private scheduled = false;
  private failure: unknown;
  private stopped = false;
  private settle!: { resolve(): void; reject(err: unknown): void };
  /** Resolves once the whole body is parsed; rejects with what stopped the parser. */
  readonly done: Promise<void>;

  constructor(
    private readonly parser: RecordParser,
    private readonly socket: Flow,
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // Whoever awaits `done` hears of a failure; this keeps one that comes while nobody waits from being unhandled.
    this.done.catch(() => undefined);
  }

  /** A chunk of the body (memory the socket reuses: copied). A throw stops the body. */
  write(chunk: Uint8Array): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.stopped) return;
    this.queue.push(Uint8Array.prototype.slice.call(chunk));
    this.queued += chunk.byteLength;
    this.flow();
    this.schedule();
  }

  end(): void {
    if (this.failure !== undefined) throw this.failure;
    this.ended = true;
    this.schedule();
  }

  /** Drops what is left (the body failed elsewhere). */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.queued = 0;
  }

  /** The upload's commits lag: read no more until resume(). */
  pause(): void {
    this.lagging = true;
    this.flow();
  }

  resume(): void {
    this.lagging = false;
    this.flow();
    this.schedule();
  }

  /** pause() is asked again each time (it is idempotent): the body stream resumes the socket once on its own when piped. */
  private flow(): void {
    if (this.lagging || this.queued > BACKLOG_BYTES) {
      this.socketPaused = true;
      this.socket.pause();
    } else if (this.socketPaused) {
      this.socketPaused = false;
      this.socket.resume();
    }
  }

  private schedule(): void {
    if (this.scheduled || this.stopped || this.failure !== undefined) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    if (this.stopped || this.failure !== undefined || this.lagging) return;
    try {
      if (this.queue.length > 0) {
        this.parser.write(this.decoder.decode(this.take(), { stream: true }));
      } else if (this.ended) {
        const rest = this.decoder.decode();
        if (rest.length > 0) this.parser.write(rest);
        this.parser.end();
        this.stopped = true;
        this.settle.resolve();
        return;
      }
    } catch (err) {
      this.fail(err);
      return;
    }
    this.flow();
    if (this.queue.length > 0 || this.ended) this.schedule();
  }

  /** The next slice of the backlog. */
  private take(): Uint8Array {
    const head = this.queue[0]!;
    if (head.byteLength <= SLICE_BYTES) {
      this.queue.shift();
      this.queued -= head.byteLength;
      return head;
    }
    this.queue[0] = head.subarray(SLICE_BYTES);
    this.queued -= SLICE_BYTES;
    return head.subarray(0, SLICE_BYTES);
  }

  /** The parser stopped: the socket is let go, so that the body's next chunk meets the failure and stops it. */
  private fail(err: unknown): void {
    this.failure = err;
    this.queue.length = 0;
    this.queued = 0;
    this.settle.reject(err);
    if (this.socketPaused) {
      this.socketPaused = false;
      this.socket.resume();
    }
  }
}
