/**
 * `npm run bench:soak` (not in CI): the real server under mixed traffic at a fixed rate for a long while (events,
 * every strategy, upserts, a CSV upload at a quarter, a key rotation halfway), open loop; each minute the server's
 * and PostgreSQL's memory, where the CPU went, and per kind the p50/p99/max from each request's due time. First the
 * same traffic against a bare endpoint: the client's floor. The summary says GROWING or DRIFT rather than failing.
 * Figures in bench/results/soak-<date>.json. BENCH_DATABASE_URL, BENCH_KEEP, BENCH_VERBOSE as for bench:ingest.
 */
import os from "node:os";
import pg from "pg";
import { connectionUrl, prepareStorage, type Storage } from "../kit/storage.js";
import { orgSeq } from "../kit/org.js";
import { stopChild, withServer, type Child } from "../kit/processes.js";
import { logCounts, waitForLog } from "../kit/serverLog.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import { writeFigures } from "../kit/results.js";
import { readFlags } from "../kit/flags.js";
import { cpuShare } from "../kit/cpuShare.js";
import { startUwsCeiling } from "./traffic/uwsCeilingProcess.js";
import { kindMinute } from "./soak/minutes.js";
import { KINDS, Mix, type Kind } from "./soak/mix.js";
import { newOrg, orgSpec, setUpOrgs, type SoakOrg } from "./soak/orgs.js";
import { floorReport, minuteHeader, minuteLine, summarise, summaryReport } from "./soak/report.js";
import { soak } from "./soak/soakRun.js";
import { Tally } from "./soak/tally.js";
import { drive } from "./soak/traffic.js";

const FIRST_TRAINING_TIMEOUT_MS = 5 * 60_000;

function parseSoakArgs(argv: string[]) {
  const flags = readFlags(
    {
      minutes: { help: "length of the soak (default 30)" },
      rate: { help: "requests per second, all kinds together (default 300)" },
      "data-dir": { help: "keep the embedded database in DIR (default: a temporary one, removed at the end)" },
      "floor-seconds": { help: "seconds against the bare endpoint first (default 30; 0 skips it)" },
      orgs: { help: "organisations (default 3)" },
      "upload-rows": { help: "rows of the CSV upload (default 50,000; 0 skips it)" },
    },
    argv,
  );
  const whole = (min: number, max: number) => ({ min, max, integer: true });
  return {
    minutes: flags.number("minutes", 30, whole(1, 24 * 60)),
    rate: flags.number("rate", 300, whole(1, 20_000)),
    dataDir: flags.text("data-dir"),
    floorSeconds: flags.number("floor-seconds", 30, whole(0, 600)),
    orgs: flags.number("orgs", 3, whole(1, 20)),
    uploadRows: flags.number("upload-rows", 50_000, whole(0, 10_000_000)),
  };
}

/** Starts the soak from trained models, so its first minutes do not measure the fallback; PostgreSQL's shared_buffers. */
async function firstModels(server: Child, storage: Storage, orgs: SoakOrg[]): Promise<string> {
  const db = new pg.Pool({ connectionString: connectionUrl(storage), max: 1 });
  try {
    const sharedBuffers = (await db.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]!.shared_buffers;
    for (const o of orgs) {
      const seq = await orgSeq(db, o.orgId);
      await waitForLog(server, "recommender model trained", (l) => Number(l.org) === seq, FIRST_TRAINING_TIMEOUT_MS).catch((e: Error) =>
        log(`note: ${e.message}`),
      );
    }
    return sharedBuffers;
  } finally {
    await db.end();
  }
}

/** The client's own floor: the soak's mix, at its rate, against a bare uWS endpoint (bench/benchmarks/traffic/uwsCeiling.ts). */
async function measureFloor(rate: number, seconds: number, orgCount: number) {
  const { child, port } = await startUwsCeiling();
  try {
    const specs = Array.from({ length: orgCount }, (_, i) => orgSpec(i));
    const orgs = specs.map((spec) => newOrg("floor", "", spec, { pk: "svc_pk_floor", sk: "svc_sk_floor" }));
    const none = { from: 0, to: -1 };
    const tally = new Tally(performance.now(), { early: none, late: none });
    const share = cpuShare({ pid: child.proc.pid });
    const driven = await drive(new URL(`http://127.0.0.1:${port}`), orgs, new Mix(specs, 1), rate, seconds * 1000, tally);
    const p99 = Object.fromEntries(KINDS.map((k) => [k, tally.whole[k].latency.percentiles([0.99])[0]!])) as Record<Kind, number>;
    return { p99, report: floorReport(tally, driven.lateness, rate, seconds, share()) };
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<void> {
  const args = parseSoakArgs(process.argv.slice(2));
  const loadStart = os.loadavg()[0];
  let floor: Awaited<ReturnType<typeof measureFloor>> | undefined;
  if (args.floorSeconds > 0) {
    log(`client floor: ${args.rate} req/s for ${args.floorSeconds}s against a bare uWS endpoint`);
    floor = await measureFloor(args.rate, args.floorSeconds, args.orgs);
    process.stdout.write(floor.report + "\n");
  }
  const storage = await prepareStorage(args.dataDir);
  await withServer(storage, { LOG_LEVEL: "info" }, async ({ server, url }) => {
    const orgs = await setUpOrgs(url, args.orgs);
    log("waiting for each organisation's first model");
    const sharedBuffers = await firstModels(server, storage, orgs);
    log(`soak: ${args.minutes} min at ${args.rate} req/s over ${orgs.length} organisations`);
    process.stdout.write(minuteHeader() + "\n");
    const out = await soak({
      url,
      server,
      dataDir: storage.dataDir,
      orgs,
      minutes: args.minutes,
      rate: args.rate,
      uploadRows: args.uploadRows,
      onMinute: (row) => process.stdout.write(minuteLine(row) + "\n"),
    });

    const whole = out.tally.whole;
    const accepted = (k: Kind) => whole[k].statuses[202] ?? 0;
    const [latenessP99, latenessMax] = out.driven.lateness.percentiles([0.99, 1]);
    const loadAverage = { start: loadStart, end: os.loadavg()[0] };
    const summary = summarise(args, orgs.length, out, { serverLog: logCounts(server), floor, sharedBuffers, loadAverage });
    process.stdout.write(summaryReport(summary));

    const date = new Date().toISOString();
    const figures = {
      date,
      args,
      machine: { cores: os.cpus().length, loadAverage: summary.loadAverage },
      floor: floor?.p99,
      minutes: out.rows,
      windows: summary.windows,
      totals: Object.fromEntries(KINDS.map((k) => [k, kindMinute(whole[k])])),
      strategies: Object.fromEntries(
        [...out.tally.strategies].map(([s, t]) => [s, { answered: t.latency.count, p99: t.latency.percentiles([0.99])[0], modes: t.modes }]),
      ),
      eventsAccepted: accepted("ingest-1") + 100 * accepted("ingest-100"),
      memory: summary.memory,
      latency: summary.latency,
      upload: out.upload,
      rotation: out.rotation,
      distinct: summary.distinct,
      postgresSharedBuffers: sharedBuffers,
      serverLog: summary.serverLog,
      unanswered: out.driven.unanswered,
      pacerLateness: { p99: latenessP99, max: latenessMax },
      firstErrors: Object.fromEntries(out.tally.firstErrors),
    };
    writeFigures("soak", date, figures);
  }).finally(() => storage.release());
}

runBenchmark(main);
