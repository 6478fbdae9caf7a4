import type pg from "pg";
import { log } from "../wire/log.js";

/** Short: a revocation made while the connection was down must reach this process within about a second of its return. */
const RECONNECT_MS = 500;

/**
 * A LISTEN connection to one channel that comes back by itself: after a lost connection notices may have been
 * missed, so `onListening` runs each time it listens again, for the caller to catch up.
 */
export class ChannelListener {
  private client: pg.Client | undefined;
  private closed = false;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly channel: string,
    private readonly onNotice: (payload: string) => void,
    private readonly onListening: () => Promise<void>,
  ) {}

  async start(): Promise<void> {
    const client = this.connect();
    client.on("notification", (msg) => {
      if (msg.channel === this.channel) this.onNotice(msg.payload ?? "");
    });
    client.on("error", (err) => {
      log.warn("notification listener lost its connection", { channel: this.channel, error: err.message });
      this.relisten(client);
    });
    client.on("end", () => this.relisten(client));
    this.client = client;
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    await this.onListening();
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.client) discard(this.client);
    this.client = undefined;
  }

  private relisten(old: pg.Client): void {
    if (this.closed || this.client !== old) return;
    this.client = undefined;
    discard(old);
    setTimeout(() => {
      if (this.closed) return;
      this.start().catch((err) => {
        log.warn("notification listener could not listen again", { channel: this.channel, error: (err as Error).message });
        if (this.client) this.relisten(this.client);
      });
    }, RECONNECT_MS).unref();
  }
}

function discard(client: pg.Client): void {
  client.removeAllListeners();
  client.on("error", () => undefined);
  client.end().catch(() => undefined);
}
