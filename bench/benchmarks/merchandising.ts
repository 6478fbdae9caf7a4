/**
 * `npm run bench:merchandising -- --data-dir DIR [--baseline DIST [--baseline-variants all]] [--rounds 2]
 * [--duration 5] [--rate 2000]`: what rules and the per-request controls cost, on the organisation
 * `bench:recommend -- --data-dir DIR` loaded. Each round restarts this build's server (and `--baseline`'s,
 * alternated) on it, then for popular and personalized: closed-loop req/s (50 connections) and the p99 at a fixed
 * rate, as plain requests (both builds), then on this build (and the baseline's with `--baseline-variants all`)
 * with 20 rules stored, with diversity 0.5, and with 500 candidates; each build against its own plain runs.
 */
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { readFlags, WHOLE } from "../kit/flags.js";
import { call } from "../kit/api.js";
import { withServer, type Running } from "../kit/processes.js";
import { writeFigures } from "../kit/results.js";
import { runBenchmark } from "../kit/run.js";
import { waitForLog } from "../kit/serverLog.js";
import { log } from "../kit/settings.js";
import { prepareStorage, type Storage } from "../kit/storage.js";
import { itemId, type SyntheticSpec } from "../kit/synthetic.js";
import { mixedRules } from "./recommend/mixedRules.js";
import { median, table } from "../kit/table.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import { readManifest, type Manifest } from "./recommend/manifest.js";
import { bodyMaker } from "./recommend/spec.js";
import { drive } from "./traffic/drive.js";
import { paced } from "./traffic/paced.js";

const flags = readFlags({
  "data-dir": { help: "the embedded database `bench:recommend -- --data-dir DIR` loaded (required)" },
  baseline: { help: "another build's dist/ to alternate with, on the same data" },
  "baseline-variants": { help: "plain (the default): the baseline runs plain requests only; all: every variant" },
  rounds: { help: "rounds, each restarting both builds (2)" },
  duration: { help: "seconds per measured run (5)" },
  rate: { help: "requests/s of the fixed-rate runs (2,000)" },
});
const DATA_DIR = flags.text("data-dir");
const BASELINE = flags.text("baseline");
const BASELINE_VARIANTS = flags.text("baseline-variants", "plain");
const ROUNDS = flags.number("rounds", 2, WHOLE);
const DURATION_S = flags.number("duration", 5, { min: 1 });
const RATE = flags.number("rate", 2000, { min: 1 });
const CONNECTIONS = 50;
const STRATEGIES = ["popular", "personalized"] as const;
const CANDIDATES = 500;
const MODEL_TIMEOUT_MS = 30 * 60_000;

type Variant = "plain" | "20 rules" | "diversity 0.5" | "500 candidates";

type Strategy = (typeof STRATEGIES)[number];
type Row = { build: "this" | "baseline"; round: number; variant: Variant; strategy: Strategy } & Awaited<ReturnType<typeof measure>>;

/** A body maker that adds `extra` (JSON members) to each body the plain maker makes. */
function withMembers(make: () => string, extra: () => string): () => string {
  return () => `${make().slice(0, -1)},${extra()}}`;
}

function bodiesFor(variant: Variant, strategy: Strategy, spec: SyntheticSpec): () => string {
  const plain = bodyMaker(strategy, spec);
  if (variant === "diversity 0.5") return withMembers(plain, () => `"diversity":0.5`);
  if (variant !== "500 candidates") return plain;
  const random = seededRandom(3);
  // Built ahead: 500 ids a request would cost the client more than the server.
  const lists = Array.from({ length: 64 }, () => {
    const ids = Array.from({ length: CANDIDATES }, () => JSON.stringify(itemId(Math.floor(random() * spec.items))));
    return `"candidates":[${ids.join(",")}]`;
  });
  let next = 0;
  return withMembers(plain, () => lists[next++ % lists.length]!);
}

async function measure(url: string, m: Manifest, pid: number | undefined, dataDir: string | undefined, variant: Variant, strategy: Strategy) {
  const target = {
    url: `${url}/v1/recommend`,
    headers: { "content-type": "application/json", "x-api-key": m.pk },
    ours: { pid, dataDir },
  };
  const body = bodiesFor(variant, strategy, m.spec);
  await drive({ ...target, body, connections: CONNECTIONS, durationS: 1 });
  const closed = await drive({ ...target, body, connections: CONNECTIONS, durationS: DURATION_S });
  const fixed = await paced({ ...target, body, connections: CONNECTIONS, rate: RATE, durationS: DURATION_S });
  log(`    ${variant}, ${strategy}: ${Math.round(closed.reqPerS)} req/s closed loop; p99 ${fixed.p99.toFixed(2)} ms at ${RATE}/s`);
  return { reqPerS: closed.reqPerS, p99: fixed.p99, non2xx: closed.non2xx + fixed.non2xx };
}

async function deleteAllRules(url: string, sk: string): Promise<void> {
  const listed = await call(`${url}/v1/rules`, { key: sk });
  if (listed.status !== 200) throw new Error(`GET /v1/rules: ${listed.status} ${listed.text}`);
  for (const r of (listed.json.data as { rules: Array<{ rule_id: string }> }).rules)
    await call(`${url}/v1/rules/${r.rule_id}`, { method: "DELETE", key: sk });
}

/** `use` with the build's server on the data, once its model is in. */
function withModel<T>(storage: Storage, main: string | undefined, use: (s: Running) => Promise<T>): Promise<T> {
  const ready = async (s: Running) => {
    await waitForLog(s.server, "recommender model trained", () => true, MODEL_TIMEOUT_MS);
    await sleep(3_000);
    return use(s);
  };
  return withServer(storage, { LOG_LEVEL: "info" }, ready, { timeoutMs: MODEL_TIMEOUT_MS, main });
}

async function main(): Promise<void> {
  if (!DATA_DIR) throw new Error("--data-dir: the folder `npm run bench:recommend -- --data-dir` loaded");
  const manifest = readManifest(DATA_DIR);
  if (!manifest) throw new Error(`${DATA_DIR} holds no loaded organisation: run npm run bench:recommend -- --data-dir ${DATA_DIR} first`);
  const storage = await prepareStorage(DATA_DIR);
  const rows: Row[] = [];
  const builds: Array<{ build: Row["build"]; main: string | undefined }> = [{ build: "this", main: undefined }];
  if (BASELINE) builds.push({ build: "baseline", main: path.resolve(BASELINE, "src/main.js") });
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { build, main: entry } of builds) {
        log(`round ${round}, ${build} build: restarting on the data, waiting for the model`);
        await withModel(storage, entry, async ({ server, url }) => {
          const all = build === "this" || BASELINE_VARIANTS === "all";
          const variants: Variant[] = all ? ["plain", "20 rules", "diversity 0.5", "500 candidates"] : ["plain"];
          // Rules an interrupted run left behind would make "plain" a run with rules.
          if (all) await deleteAllRules(url, manifest.sk);
          for (const variant of variants) {
            const ruleIds: string[] = [];
            if (variant === "20 rules")
              for (const rule of mixedRules(manifest.spec)) {
                const made = await call(`${url}/v1/rules`, { json: rule, key: manifest.sk });
                if (made.status !== 201) throw new Error(`rule refused: ${made.status} ${made.text}`);
                ruleIds.push(made.json.data.rule_id);
              }
            for (const strategy of STRATEGIES)
              rows.push({ build, round, variant, strategy, ...(await measure(url, manifest, server.proc.pid, storage.dataDir, variant, strategy)) });
            for (const id of ruleIds) await call(`${url}/v1/rules/${id}`, { method: "DELETE", key: manifest.sk });
          }
        });
      }
    }
  } finally {
    await storage.release();
  }
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${r.build}|${r.variant}|${r.strategy}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const plainOf = (build: string, strategy: string) => groups.get(`${build}|plain|${strategy}`)!;
  console.log(
    `Merchandising cost — ${ROUNDS} rounds, ${DURATION_S} s per run, closed loop -c ${CONNECTIONS}, p99 at ${RATE} req/s (paced)\n` +
      table(
        ["build", "variant", "strategy", "req/s (each round)", "median vs the build's plain", "p99 ms (each round)", "non-2xx"],
        [...groups.values()].map((g) => {
          const { build, variant, strategy } = g[0]!;
          const ratio = median(g.map((r) => r.reqPerS)) / median(plainOf(build, strategy).map((r) => r.reqPerS));
          return [
            build,
            variant,
            strategy,
            g.map((r) => Math.round(r.reqPerS)).join(", "),
            ratio.toFixed(2),
            g.map((r) => r.p99.toFixed(2)).join(", "),
            String(g.reduce((n, r) => n + r.non2xx, 0)),
          ];
        }),
      ),
  );
  writeFigures("merchandising", new Date().toISOString(), { rounds: ROUNDS, durationS: DURATION_S, rate: RATE, baseline: BASELINE, rows });
}

runBenchmark(main);
