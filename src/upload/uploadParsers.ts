import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { appError } from "../errors.js";
import { log, logLevel } from "../wire/log.js";
import type { FromParser, ParserThreadData, ToParser } from "../wire/uploadMessages.js";
import { ParseSession, type Flow } from "./parseSession.js";
import type { UploadStream } from "./uploadStream.js";

const THREAD_FILE = fileURLToPath(new URL("./parseThread.js", import.meta.url));

type Opening = Omit<Extract<ToParser, { t: "open" }>, "t" | "id">;

/**
 * The front thread's client of the upload parse thread (src/upload/parseThread.ts), started with the first
 * upload and kept. Should the thread die, the uploads it was reading fail (500) and the next upload starts a
 * new one.
 */
export class UploadParsers {
  private worker: Worker | undefined;
  private readonly sessions = new Map<number, ParseSession>();
  private nextId = 0;

  constructor() {
    this.thread();
  }

  open(opening: Opening, socket: Flow, stream: UploadStream): ParseSession {
    const worker = this.thread();
    const id = ++this.nextId;
    const session = new ParseSession(
      id,
      (m, transfer) => worker.postMessage(m, transfer ?? []),
      socket,
      stream,
      () => this.sessions.delete(id),
    );
    this.sessions.set(id, session);
    worker.postMessage({ t: "open", id, ...opening } satisfies ToParser);
    return session;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD_FILE, { workerData: { logLevel: logLevel() } satisfies ParserThreadData });
    // Idle, it must not keep a stopping process alive.
    worker.unref();
    worker.on("message", (m: FromParser) => this.sessions.get(m.id)?.hear(m));
    worker.on("error", (err) => log.error("the upload parse thread failed", { error: err.stack ?? String(err) }));
    worker.on("exit", () => {
      if (this.worker === worker) this.worker = undefined;
      for (const s of [...this.sessions.values()]) s.fail(appError("internal_error", "uploadParserStopped"));
    });
    this.worker = worker;
    return worker;
  }
}
