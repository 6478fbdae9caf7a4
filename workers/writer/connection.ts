import pg from "pg";
import { workerData } from "piscina";
import { setLogLevel } from "../../src/wire/log.js";
import type { WriterThreadData } from "../../src/wire/threadData.js";

const data = workerData as WriterThreadData;
setLogLevel(data.logLevel);

/**
 * A writer thread's connection for one kind of task: opened on first use, set up once, and dropped after any
 * failure (its state is then unknown) so that the next task opens a fresh one.
 */
export class WriterConnection {
  private client: pg.Client | undefined;

  constructor(
    private readonly applicationName: string,
    private readonly setUp?: (c: pg.Client) => Promise<unknown>,
  ) {}

  async get(): Promise<pg.Client> {
    if (this.client) return this.client;
    const c = new pg.Client({ connectionString: data.databaseUrl, connectionTimeoutMillis: 2000, application_name: this.applicationName });
    c.on("error", () => {
      if (this.client === c) this.client = undefined;
    });
    await c.connect();
    await this.setUp?.(c);
    this.client = c;
    return c;
  }

  drop(c: pg.Client): void {
    if (this.client === c) this.client = undefined;
    c.end().catch(() => undefined);
  }
}
