import type pg from "pg";

/** The parts of node-postgres' connection a submittable query is handed (see pg's Client#query). */
interface Connection {
  stream: { write(data: Buffer): boolean };
}

/** Bytes the frame adds around the statement and the rows: 'Q', length, NUL, 'd', length, then 'c', length. */
const FRAME_BYTES = 1 + 4 + 1 + 1 + 4 + 1 + 4;

/** Room a COPY message needs besides its rows. */
export function frameBytes(statement: string): number {
  return FRAME_BYTES + Buffer.byteLength(statement);
}

/** Writes the Query message and the CopyData header into `out`; returns where the rows start. */
export function writeCopyHead(out: Buffer, statement: string): number {
  const statementBytes = Buffer.byteLength(statement);
  let at = 0;
  out[at++] = 0x51; // 'Q'
  at = out.writeInt32BE(4 + statementBytes + 1, at);
  at += out.write(statement, at, "utf8");
  out[at++] = 0;
  out[at++] = 0x64; // 'd'
  return at + 4; // the CopyData length, filled in by endCopyMessage
}

/** Fills in the CopyData length and appends CopyDone; returns the whole message (a view of `out`). */
export function endCopyMessage(out: Buffer, rowsStart: number, rowsEnd: number): Buffer {
  out.writeInt32BE(4 + rowsEnd - rowsStart, rowsStart - 4);
  out[rowsEnd] = 0x63; // 'c'
  out.writeInt32BE(4, rowsEnd + 1);
  return out.subarray(0, rowsEnd + 5);
}

/** Query ('Q'), CopyData ('d') and CopyDone ('c') messages for `rows` in COPY text, in one buffer. */
export function copyMessage(statement: string, rows: string): Buffer {
  const out = Buffer.allocUnsafe(frameBytes(statement) + Buffer.byteLength(rows));
  const start = writeCopyHead(out, statement);
  return endCopyMessage(out, start, start + out.write(rows, start, "utf8"));
}

/**
 * `COPY … FROM STDIN` with its rows sent in the same write as the statement: one round trip to the
 * database instead of two (a streaming COPY waits for the server's CopyInResponse before it sends data).
 * The wire protocol allows it: the server reads the CopyData that follows a COPY statement from its input,
 * and if the statement fails first, it drops any CopyData and CopyDone that follow (PostgreSQL protocol,
 * "COPY Operations"). Used through `client.query(copy)`: node-postgres calls submit() when the connection
 * is free, then the handle* methods as the server answers.
 */
export class PipelinedCopy implements pg.Submittable {
  callback: ((err: Error | null) => void) | undefined;
  private error: Error | null = null;
  private readonly done: Promise<void>;

  /**
   * `message`: from copyMessage, or built in place with writeCopyHead and endCopyMessage. `more`: written right
   * after it, the CopyData and CopyDone of a further COPY in the same statement text (CLUSTER=1's log row).
   */
  constructor(
    private readonly message: Buffer,
    private readonly more: readonly Buffer[] = [],
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.callback = (err) => (err ? reject(err) : resolve());
    });
  }

  /**
   * Resolves once the COPY has ended (and, outside a transaction, is committed). The server has then read the
   * whole message, so its buffer may be reused; after a failure it may not have.
   */
  run(client: pg.Client): Promise<void> {
    client.query(this);
    return this.done;
  }

  submit(connection: Connection): void {
    connection.stream.write(this.message);
    for (const b of this.more) connection.stream.write(b);
  }

  handleCopyInResponse(): void {
    // The rows are already on their way.
  }

  handleCommandComplete(): void {}

  handleError(err: Error): void {
    // node-postgres forgets this query once it reports an error: this is the last call it gets.
    this.error = err;
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  private finish(): void {
    const cb = this.callback;
    this.callback = undefined;
    cb?.(this.error);
  }
}
