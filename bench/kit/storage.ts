/**
 * The PostgreSQL the server writes to: a fresh database created on BENCH_DATABASE_URL and dropped at the end,
 * or an embedded cluster that the server starts in a temporary DATA_DIR.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { DATABASE_URL, KEEP_DATA_DIR, log } from "./settings.js";

export interface Storage {
  /** The embedded cluster's DATA_DIR, when embedded. */
  dataDir?: string;
  /** The benchmark database, when external. */
  databaseUrl?: string;
  /** Call once the server has stopped. */
  release(): Promise<void>;
}

/** `keptDir`: an embedded cluster in that folder, created if missing and kept afterwards (to reuse loaded data). */
export async function prepareStorage(keptDir?: string): Promise<Storage> {
  if (keptDir) {
    mkdirSync(keptDir, { recursive: true });
    return { dataDir: keptDir, release: () => stopEmbedded(keptDir) };
  }
  if (DATABASE_URL) return createDatabase(DATABASE_URL);
  const dataDir = mkdtempSync(path.join(tmpdir(), "recsvc-bench-"));
  return {
    dataDir,
    release: async () => {
      await stopEmbedded(dataDir);
      if (!KEEP_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function createDatabase(adminUrl: string): Promise<Storage> {
  const name = `recsvc_bench_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    databaseUrl: u.toString(),
    release: () =>
      adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((e: Error) =>
        log(`could not drop the benchmark database: ${e.message}`),
      ),
  };
}

/** One statement on its own connection (CREATE and DROP DATABASE run outside a pool). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Where to connect once the server is up (an embedded cluster's port and password exist only then). */
export function connectionUrl(s: Storage): string {
  return s.databaseUrl ?? embeddedUrl(s.dataDir!);
}

function embeddedUrl(dataDir: string): string {
  const password = readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  const conf = readFileSync(path.join(dataDir, "pg", "postgresql.conf"), "utf8");
  const port = [...conf.matchAll(/^port\s*=\s*(\d+)/gm)].at(-1)![1];
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
}

/** Stops an embedded cluster the server left running (it stops its own on a clean exit). */
async function stopEmbedded(dataDir: string): Promise<void> {
  let pid: number;
  try {
    pid = postmasterPid(dataDir);
    process.kill(pid, "SIGINT");
  } catch {
    return;
  }
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
}

export async function serverVersion(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  return rows[0].v;
}

/** `n` views of organisation `org` written straight into `events` (users and items hashed from the row number, the last 30 days). */
export async function insertViews(db: pg.Client, org: number, n: number, users: number, items: number): Promise<void> {
  await db.query(
    `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at)
     SELECT $1, gen_random_uuid(), 'u' || (hashint4(g) % $3), 'i' || (hashint4(g + 7) % $4), 'engagement', 'view', 1,
            now() - (g % 2592000) * interval '1 second'
     FROM generate_series(1, $2) AS g`,
    [org, n, users, items],
  );
}
