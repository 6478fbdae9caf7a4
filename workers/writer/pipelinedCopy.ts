import type pg from "pg";

/** The parts of node-postgres' connection a submittable query is handed (see pg's Client#query). */
interface Connection {
  stream: { write(data: Buffer): boolean };
}

/**
 * `COPY … FROM STDIN` with its rows sent in the same write as the statement: one round trip to the
 * database instead of two (a streaming COPY waits for the server's CopyInResponse before it sends data).
 * The wire protocol allows it: the server reads the CopyData that follows a COPY statement from its input,
 * and if the statement fails first, it drops any CopyData and CopyDone that follow (PostgreSQL protocol,
 * "COPY Operations"). Used through `client.query(copy)`: node-postgres calls submit() when the connection
 * is free, then the handle* methods as the server answers.
 */
export class PipelinedCopy {
  callback: ((err: Error | null) => void) | undefined;
  private error: Error | null = null;
  private readonly done: Promise<void>;

  constructor(private readonly statement: string, private readonly rows: string) {
    this.done = new Promise<void>((resolve, reject) => {
      this.callback = (err) => (err ? reject(err) : resolve());
    });
  }

  /** Resolves once the COPY has ended (and, outside a transaction, is committed). */
  run(client: pg.Client): Promise<void> {
    client.query(this as unknown as pg.QueryConfig);
    return this.done;
  }

  /** Query ('Q'), CopyData ('d') and CopyDone ('c') messages, built into one buffer and written at once. */
  submit(connection: Connection): void {
    const statementBytes = Buffer.byteLength(this.statement);
    const rowBytes = Buffer.byteLength(this.rows);
    const out = Buffer.allocUnsafe(1 + 4 + statementBytes + 1 + 1 + 4 + rowBytes + 1 + 4);
    let at = 0;
    out[at++] = 0x51; // 'Q'
    at = out.writeInt32BE(4 + statementBytes + 1, at);
    at += out.write(this.statement, at, "utf8");
    out[at++] = 0;
    out[at++] = 0x64; // 'd'
    at = out.writeInt32BE(4 + rowBytes, at);
    at += out.write(this.rows, at, "utf8");
    out[at++] = 0x63; // 'c'
    out.writeInt32BE(4, at);
    connection.stream.write(out);
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
