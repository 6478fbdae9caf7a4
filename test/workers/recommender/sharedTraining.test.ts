import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setLogLevel } from "../../../src/wire/log.js";
import { MODEL_CHANNEL } from "../../../src/wire/shardMessages.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { storedModelBytes } from "../../../workers/recommender/storedModelBytes.js";
import { SharedTraining } from "../../../workers/recommender/sharedTraining.js";
import { startServer, type TestServer } from "../../helpers/server.js";

/** The leases and the stored model on a real PostgreSQL (migrated by a server process), as several processes see them. */
let server: TestServer;
const processes: SharedTraining[] = [];
const holders: string[] = [];

function process(k: number): SharedTraining {
  while (processes.length <= k) {
    const holder = randomUUID();
    holders.push(holder);
    processes.push(
      new SharedTraining({ databaseUrl: server.databaseUrl, holder, leaseS: 600, shard: 0, shards: 1, index: (org) => new OrgIndex(org) }),
    );
  }
  return processes[k]!;
}

beforeAll(async () => {
  server = await startServer();
  setLogLevel("error"); // the refused store's warning is expected
}, 120_000);
afterAll(async () => {
  setLogLevel("info");
  await Promise.all(processes.map((p) => p.stop()));
  await server?.cleanup();
});

describe("training shared through PostgreSQL (CLUSTER=1)", () => {
  it("lets exactly one of several processes asking at once train an organisation", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, k) => process(k).claim(1)));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it("keeps an organisation with its holder, who may ask again, until the lease expires; then the next to ask takes it", async () => {
    expect(await process(0).claim(2)).toBe(true);
    expect(await process(0).claim(2)).toBe(true);
    expect(await process(1).claim(2)).toBe(false);
    await server.db().query("UPDATE training_lease SET expires_at = now() - interval '1 second' WHERE org = 2");
    expect(await process(1).claim(2)).toBe(true);
    expect(await process(0).claim(2)).toBe(false);
  });

  it("stores a model only while its writer holds the lease, announces it, and reads its bytes back whole", async () => {
    const listener = new pg.Client({ connectionString: server.databaseUrl });
    await listener.connect();
    const notices: string[] = [];
    listener.on("notification", (n) => notices.push(n.payload ?? ""));
    await listener.query(`LISTEN ${MODEL_CHANNEL}`);
    try {
      expect(await process(0).claim(3)).toBe(true);
      const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256);
      await process(0).store(3, bytes, 1234);
      const reader = new pg.Client({ connectionString: server.databaseUrl });
      await reader.connect();
      try {
        const stored = await storedModelBytes(reader, 3);
        expect(stored?.bytes).toEqual(bytes);
        await process(1).store(3, new Uint8Array(10), 1); // not its lease
        expect((await storedModelBytes(reader, 3))?.version).toBe(stored!.version);
        expect(await storedModelBytes(reader, 4)).toBeUndefined();
        await expect.poll(() => notices).toEqual([`3 ${stored!.version} ${holders[0]}`]);
        expect(await process(1).storedVersions()).toEqual(new Map([[3, stored!.version]]));
      } finally {
        await reader.end();
      }
    } finally {
      await listener.end();
    }
  });
});
