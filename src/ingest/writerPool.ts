import { fileURLToPath } from "node:url";
import { Packr } from "msgpackr";
import { Piscina } from "piscina";
import type { WriteResult, WriteTask } from "../../workers/writer/index.js";
import type { ServedResult, ServedRow } from "../../workers/writer/served.js";
import type { BatchPayload } from "./rows.js";

const WORKER_FILE = fileURLToPath(new URL("../../workers/writer/index.js", import.meta.url));
const SERVED_FILE = fileURLToPath(new URL("../../workers/writer/served.js", import.meta.url));

export interface WriterPool {
  write(batch: BatchPayload): Promise<WriteResult>;
  /** Served recommendations (attribution), written by the same threads with a COPY of their own. */
  writeServed(rows: ServedRow[]): Promise<ServedResult>;
  readonly threads: number;
  close(): Promise<void>;
}

/** The piscina pool of writer threads; a batch crosses as one packed buffer whose memory is moved, not copied. */
export function createWriterPool(databaseUrl: string, threads: number): WriterPool {
  const pool = new Piscina<WriteTask | ServedRow[], WriteResult | ServedResult>({
    filename: WORKER_FILE,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    idleTimeout: Infinity,
    workerData: { databaseUrl },
  });
  const packr = new Packr({ useRecords: false });
  return {
    threads,
    write(batch) {
      const packed = packr.pack(batch);
      const payload = new Uint8Array(packed.length);
      payload.set(packed);
      return pool.run({ payload }, { transferList: [payload.buffer] }) as Promise<WriteResult>;
    },
    writeServed: (rows) => pool.run(rows, { filename: SERVED_FILE }) as Promise<ServedResult>,
    close: () => pool.destroy(),
  };
}
