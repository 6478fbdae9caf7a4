/**
 * `npm run bench:noisy`: whether one organisation can slow another on the same recommender thread
 * (RECOMMEND_SHARDS=1), and what its hostile catalogs cost in memory; the README's Benchmarks section says what
 * it loads and sends. The hostile requests: noisy/catalogs.ts.
 * BENCH_DATABASE_URL as for bench:ingest. Compare builds within one run: the machine's other load moves the figures.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { prepareStorage, type Storage } from "../kit/storage.js";
import { registerOrg } from "../kit/org.js";
import { withServer, type Running } from "../kit/processes.js";
import { rssMb } from "../kit/proc.js";
import { int, ms, table } from "../kit/table.js";
import { call } from "../kit/api.js";
import { readFlags } from "../kit/flags.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import { pollUntil } from "../kit/poll.js";
import { loadBystander, loadTagCatalog, loadTextCatalog, viewTagCatalog, HOSTILE_KINDS, hostileBody } from "./noisy/catalogs.js";
import { newStats, runSchedule, type PacedStats, type Schedule } from "./noisy/pacedClient.js";

const flags = readFlags({
  builds: { help: "server entry points, name=path,… (default `new=dist/src/main.js`), alternated" },
  rounds: { help: "times each build is run (default 1)" },
  duration: { help: "seconds of each noise phase (default 30)" },
  rates: { help: "hostile request rates = the rate limit, per second (default 0,1,20; 0: bystanders alone, no limit)" },
  "bystander-rate": { help: "bystander `popular` requests per second, all together (default 30)" },
  "text-items": { help: "items of the 30 KiB-string catalog (default 2,000: 60 MB)" },
});
const BUILDS = (flags.text("builds") ?? `new=${fileURLToPath(new URL("../../src/main.js", import.meta.url))}`).split(",").map((b) => {
  const [name, path] = b.split("=");
  if (!name || !path) throw new Error(`--builds: expected name=path, got ${b}`);
  return { name, main: path };
});
const ROUNDS = flags.number("rounds", 1, { min: 1 });
const DURATION_S = flags.number("duration", 30, { min: 1 });
const RATES = flags.numbers("rates", "0,1,20", { min: 0 });
const BYSTANDER_RATE = flags.number("bystander-rate", 30, { min: 1 });
const TEXT_ITEMS = flags.number("text-items", 2_000, { min: 1 });
/** Bystanders pace at this share of the rate limit: a fixed one-second window never sees two of theirs. */
const BYSTANDER_SHARE = 0.8;
const READY_TIMEOUT_MS = 300_000;
const QUIET_LIMIT = 1_000_000_000;
const SETTLE_SAMPLES = 4;
const SAMPLE_MS = 5_000;

interface Org {
  pk: string;
  sk: string;
}

const quantiles = (s: PacedStats) => s.latencies.percentiles([0.5, 0.99, 1]);
const count = (s: PacedStats, status: number) => s.statuses.get(status) ?? 0;
const statusText = (s: PacedStats) =>
  [...s.statuses.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([k, v]) => `${k}×${v}`)
    .join(" ") + (s.errors ? ` errors×${s.errors}` : "");

/** `use` with the build's server on what is stored, every organisation on the one recommender thread. */
function onBuild<T>(storage: Storage, main: string, env: NodeJS.ProcessEnv, use: (s: Running) => Promise<T>): Promise<T> {
  return withServer(storage, { RECOMMEND_SHARDS: "1", LOG_LEVEL: "warn", ...env }, use, { main });
}

/** Waits until the thread has loaded the organisations (a request answers 200 rather than 503). */
async function waitReady(url: string, org: Org, body: string): Promise<void> {
  let last = 0;
  const answered = async () => ((last = (await call(`${url}/v1/recommend`, { key: org.pk, body })).status) === 200 ? true : undefined);
  await pollUntil(answered, 500, READY_TIMEOUT_MS, () => `the server did not answer 200 in time (last ${last})`);
}

/** RSS of the server started on what is stored, once loaded and settled (lowest sample). */
function settledRss(storage: Storage, main: string, probe: Org): Promise<number> {
  return onBuild(storage, main, {}, async ({ server, url }) => {
    await waitReady(url, probe, JSON.stringify({ strategy: "popular" }));
    const samples: number[] = [];
    for (let k = 0; k < SETTLE_SAMPLES; k++) {
      await sleep(SAMPLE_MS);
      samples.push(rssMb(server.proc.pid));
    }
    log(`  RSS samples ${samples.map((x) => x.toFixed(0)).join(", ")} MB`);
    return Math.min(...samples);
  });
}

async function runBuild(build: { name: string; main: string }, round: number) {
  const storage = await prepareStorage();
  const run = {
    build: build.name,
    round,
    memory: [] as { name: string; jsonMb: number; rssMb: number }[],
    noise: [] as Awaited<ReturnType<typeof noise>>[],
  };
  try {
    const bystanderCount = Math.max(...RATES.map((r) => (r === 0 ? 1 : Math.ceil(BYSTANDER_RATE / (BYSTANDER_SHARE * r)))));
    log(`[${build.name} #${round}] registering 2 hostile and ${bystanderCount} bystander organisations`);
    const { hostile, textOrg, bystanders } = await onBuild(storage, build.main, {}, async ({ url }) => {
      const orgs = { hostile: await registerOrg(url), textOrg: await registerOrg(url), bystanders: [] as Org[] };
      for (let b = 0; b < bystanderCount; b++) {
        const org = await registerOrg(url);
        await loadBystander(url, org.sk, org.pk);
        orgs.bystanders.push(org);
      }
      return orgs;
    });
    log(`[${build.name} #${round}] RSS before the hostile catalogs`);
    let before = await settledRss(storage, build.main, bystanders[0]!);
    for (const stage of ["tags", "text"] as const) {
      const jsonBytes = await onBuild(storage, build.main, {}, async ({ url }) => {
        if (stage === "text") return loadTextCatalog(url, textOrg.sk, TEXT_ITEMS);
        const bytes = await loadTagCatalog(url, hostile.sk);
        await viewTagCatalog(url, hostile.pk);
        return bytes;
      });
      log(`[${build.name} #${round}] RSS with the ${stage} catalog (${(jsonBytes / 2 ** 20).toFixed(1)} MB of attribute JSON)`);
      const after = await settledRss(storage, build.main, bystanders[0]!);
      run.memory.push({ name: stage, jsonMb: jsonBytes / 2 ** 20, rssMb: after - before });
      before = after;
    }
    for (const rate of RATES) run.noise.push(await noise(storage, build, round, rate, hostile, bystanders));
    return run;
  } finally {
    await storage.release();
  }
}

async function noise(storage: Storage, build: { name: string; main: string }, round: number, rate: number, hostile: Org, bystanders: Org[]) {
  // The quiet baseline (no hostile requests) keeps the bench's usual limit-free setting.
  const limit = rate === 0 ? QUIET_LIMIT : rate;
  log(`[${build.name} #${round}] noise: hostile at ${rate}/s (RATE_LIMIT_MAX=${limit} per 1 s), bystanders ${BYSTANDER_RATE}/s for ${DURATION_S} s`);
  const env = { RATE_LIMIT_MAX: String(limit), RATE_LIMIT_WINDOW_S: "1" };
  return onBuild(storage, build.main, env, async ({ url }) => {
    // `popular`: on the old build a hostile `similar` outlasts the recommend timeout (503) even when loaded.
    await waitReady(url, hostile, JSON.stringify({ strategy: "popular", limit: 1 }));
    for (const b of bystanders) await waitReady(url, b, JSON.stringify({ strategy: "popular" }));
    await sleep(2_000); // a fresh one-second window for every organisation
    const perBystander = rate === 0 ? BYSTANDER_RATE : Math.min(BYSTANDER_SHARE * limit, BYSTANDER_RATE);
    const used = bystanders.slice(0, Math.ceil(BYSTANDER_RATE / perBystander));
    const bystander = newStats();
    const hostileStats = new Map(HOSTILE_KINDS.map((k) => [k, newStats()] as const));
    const start = performance.now() + 100;
    const schedules: Promise<void>[] = used.map((org, b) => {
      const s: Schedule = {
        url,
        key: org.pk,
        body: () => '{"strategy":"popular","limit":20}',
        rate: perBystander,
        offsetS: b / BYSTANDER_RATE,
        durationS: DURATION_S,
      };
      return runSchedule(s, start, bystander);
    });
    if (rate > 0) {
      // Kinds in turn; each request's answer is counted under its kind.
      for (const [i, kind] of HOSTILE_KINDS.entries()) {
        const s: Schedule = {
          url,
          key: hostile.pk,
          body: (k) => hostileBody(kind, k),
          rate: rate / HOSTILE_KINDS.length,
          offsetS: 0.37 + i / rate,
          durationS: DURATION_S,
        };
        schedules.push(runSchedule(s, start, hostileStats.get(kind)!));
      }
    }
    await Promise.all(schedules);
    return { rate, bystander, hostile: hostileStats };
  });
}

async function main(): Promise<void> {
  const runs: Awaited<ReturnType<typeof runBuild>>[] = [];
  for (let round = 1; round <= ROUNDS; round++) for (const build of BUILDS) runs.push(await runBuild(build, round));
  console.log(`bench:noisy — RECOMMEND_SHARDS=1, ${DURATION_S} s per phase, bystanders ${BYSTANDER_RATE} popular/s in all`);
  console.log("\nMemory: RSS added by each hostile catalog (server restarted on what is stored)\n");
  console.log(
    table(
      ["build", "round", "catalog", "attribute JSON MB", "RSS added MB", "× JSON"],
      runs.flatMap((r) =>
        r.memory.map((m) => [r.build, String(r.round), m.name, m.jsonMb.toFixed(1), m.rssMb.toFixed(0), (m.rssMb / m.jsonMb).toFixed(1)]),
      ),
    ),
  );
  console.log("\nBystander `popular` while the hostile organisation sends at its rate limit (ms from due time)\n");
  console.log(
    table(
      ["build", "round", "hostile/s", "requests", "p50", "p99", "max", "503", "statuses"],
      runs.flatMap((r) =>
        r.noise.map((n) => {
          const [p50, p99, max] = quantiles(n.bystander);
          return [
            r.build,
            String(r.round),
            String(n.rate),
            int(n.bystander.latencies.count),
            ms(p50!),
            ms(p99!),
            ms(max!),
            int(count(n.bystander, 503)),
            statusText(n.bystander),
          ];
        }),
      ),
    ),
  );
  console.log("\nThe hostile requests themselves (ms from due time)\n");
  console.log(
    table(
      ["build", "round", "hostile/s", "kind", "requests", "p50", "p99", "max", "statuses"],
      runs.flatMap((r) =>
        r.noise
          .filter((n) => n.rate > 0)
          .flatMap((n) =>
            HOSTILE_KINDS.map((kind) => {
              const s = n.hostile.get(kind)!;
              const [p50, p99, max] = quantiles(s);
              return [r.build, String(r.round), String(n.rate), kind, int(s.latencies.count), ms(p50!), ms(p99!), ms(max!), statusText(s)];
            }),
          ),
      ),
    ),
  );
}

runBenchmark(main);
