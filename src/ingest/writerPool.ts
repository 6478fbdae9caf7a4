import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { logLevel } from "../wire/log.js";
import type { OrgQuotaLimits, WriterThreadData } from "../wire/threadData.js";
import type { ServedResult, ServedTask, WriteResult, WriteTask } from "../wire/writeTasks.js";

const WORKER_FILE = fileURLToPath(new URL("../../workers/writer/writeBatch.js", import.meta.url));
const SERVED_FILE = fileURLToPath(new URL("../../workers/writer/writeServed.js", import.meta.url));

export interface WriterPool {
  /** Writes one batch packed by packBatch; its memory is moved to the writer thread. */
  write(payload: Uint8Array<ArrayBuffer>): Promise<WriteResult>;
  /** Served recommendations (attribution), packed one after another, written by the same threads with a COPY of their own. */
  writeServed(payload: Uint8Array<ArrayBuffer>): Promise<ServedResult>;
  readonly threads: number;
  close(): Promise<void>;
}

/**
 * The piscina pool of writer threads. A batch crosses as one packed buffer whose memory is moved, not copied:
 * a structured clone of thousands of rows costs the front thread twice as much.
 */
export function createWriterPool(databaseUrl: string, threads: number, quotas: OrgQuotaLimits, announceAs?: string): WriterPool {
  const pool = new Piscina<WriteTask | ServedTask, WriteResult | ServedResult>({
    filename: WORKER_FILE,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    idleTimeout: Infinity,
    workerData: { databaseUrl, logLevel: logLevel(), announceAs, quotas } satisfies WriterThreadData,
  });
  return {
    threads,
    write(payload) {
      return pool.run({ payload }, { transferList: [payload.buffer] }) as Promise<WriteResult>;
    },
    writeServed(payload) {
      return pool.run({ payload }, { filename: SERVED_FILE, transferList: [payload.buffer] }) as Promise<ServedResult>;
    },
    close: () => pool.destroy(),
  };
}
