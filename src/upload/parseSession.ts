import { appError, AppError, ERROR_STATUS, type ErrorCode } from "../errors.js";
import type { FromParser, ToParser } from "../wire/uploadMessages.js";
import type { UploadError, UploadStream } from "./uploadStream.js";

/** Bytes of body sent to the parse thread and not yet parsed past which the socket is paused. */
const BACKLOG_BYTES = 1024 * 1024;

/** The socket's flow control (src/http/bodyStream.ts). */
export interface Flow {
  pause(): void;
  resume(): void;
}

/** What the parse thread reports of a whole body, besides the rows. */
export interface Parsed {
  rejected: number;
  errors: UploadError[];
}

/**
 * The front thread's side of one upload being parsed on the parse thread: the body's chunks are copied and
 * moved there as they arrive, the packed rows that come back go to the UploadStream. The socket is paused
 * while the thread's backlog is large or while the upload's commits lag.
 */
export class ParseSession {
  private backlog = 0;
  private lagging = false;
  private socketPaused = false;
  private failure: AppError | undefined;
  private over = false;
  private settle!: { resolve(p: Parsed): void; reject(err: unknown): void };
  /** Resolves once the whole body is parsed (every chunk of rows handed to the stream first); rejects with what stopped it. */
  readonly done: Promise<Parsed>;

  constructor(
    private readonly id: number,
    private readonly post: (m: ToParser, transfer?: ArrayBuffer[]) => void,
    private readonly socket: Flow,
    private readonly stream: UploadStream,
    private readonly forget: () => void,
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // Whoever awaits `done` hears of a failure; this keeps one that comes while nobody waits from being unhandled.
    this.done.catch(() => undefined);
  }

  /** A chunk of the body, in memory the socket reuses: copied into memory of its own, which moves. A throw stops the body. */
  write(chunk: Uint8Array): void {
    if (this.failure) throw this.failure;
    const bytes = new Uint8Array(chunk.byteLength);
    bytes.set(chunk);
    this.backlog += bytes.byteLength;
    this.post({ t: "chunk", id: this.id, bytes }, [bytes.buffer]);
    this.flow();
  }

  end(): void {
    if (this.failure) throw this.failure;
    this.post({ t: "end", id: this.id });
  }

  /** The upload's commits lag: read no more of the body until resume(). */
  pause(): void {
    this.lagging = true;
    this.flow();
  }

  resume(): void {
    this.lagging = false;
    this.flow();
  }

  /** Stops the upload (idempotent): the thread forgets it, and the body's next chunk meets the failure. */
  fail(err: unknown): void {
    if (this.over) return;
    this.over = true;
    this.failure = err instanceof AppError ? err : appError("internal_error", "uploadStopped");
    this.post({ t: "drop", id: this.id });
    this.forget();
    this.settle.reject(err);
    if (this.socketPaused) {
      this.socketPaused = false;
      this.socket.resume();
    }
  }

  /** A message of the parse thread about this upload. */
  hear(m: FromParser): void {
    if (this.over) return;
    if (m.t === "took") {
      this.backlog -= m.bytes;
      this.flow();
    } else if (m.t === "rows") {
      try {
        this.stream.submit(m);
      } catch (err) {
        this.fail(err);
      }
    } else if (m.t === "done") {
      this.over = true;
      this.forget();
      this.settle.resolve({ rejected: m.rejected, errors: m.errors });
    } else {
      const code = (Object.hasOwn(ERROR_STATUS, m.code) ? m.code : "internal_error") as ErrorCode;
      this.fail(new AppError(code, m.message));
    }
  }

  /** pause() is asked again each time (it is idempotent): the body stream resumes the socket once on its own when piped. */
  private flow(): void {
    if (this.lagging || this.backlog > BACKLOG_BYTES) {
      this.socketPaused = true;
      this.socket.pause();
    } else if (this.socketPaused) {
      this.socketPaused = false;
      this.socket.resume();
    }
  }
}
