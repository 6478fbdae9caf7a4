/** The printed report of bench:recommend: load, start-up, memory, each strategy against the ceiling, targets. */
import { GLOBAL_STRATEGIES } from "../../../src/wire/strategies.js";
import { int, pct, table } from "../../kit/table.js";
import type { Manifest } from "./manifest.js";
import type { Ceiling } from "./ceiling.js";
import type { PacedResult, Percentiles } from "../traffic/paced.js";
import type { RetrainFigures } from "./retrain.js";
import { specLine } from "./spec.js";
import type { StartFigures } from "./startPhase.js";
import type { FixedRateRun, StrategyRun, ThreadCores } from "./strategies.js";

const GLOBAL_SHARE_TARGET = 0.5;
const FIXED_P99_TARGET_MS = 10;
const INDEX_MB_TARGET = 200;

export interface Results {
  date: string;
  scale: number;
  machine: { cores: number; loadAverageStart: number; loadAverageEnd: number; busyAtStart: string[]; busyAtEnd: string[] };
  settings: { connections: number; durationS: number; warmupS: number; fixedRate: number; fixedDurationS: number; fixedRuns: number };
  manifest: Omit<Manifest, "pk" | "sk">;
  /** True when this run loaded the data; false when it reused a kept data dir (load figures from then). */
  loadedNow: boolean;
  start: StartFigures;
  memory: { loadedRssMb: number; emptyRssMb: number; indexMb: number; afterLoadRssMb: number };
  /** The higher of the two measurements below: the one ratios are taken against. */
  ceiling: Ceiling;
  /** Measured before and after the strategy runs. */
  ceilings: Ceiling[];
  strategies: StrategyRun[];
  fixedRate: FixedRateRun[];
  retrain: RetrainFigures | undefined;
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const fails = (l: { non2xx: number; errors: number }) => l.non2xx + l.errors;

function targets(r: Results) {
  const out: Array<{ figure: string; measured: string; target: string; met: boolean }> = [];
  for (const s of r.strategies.filter((x) => GLOBAL_STRATEGIES.has(x.strategy))) {
    const share = s.load.reqPerS / r.ceiling.reqPerS;
    out.push({
      figure: `${s.strategy} req/s vs ceiling`,
      measured: `${int(s.load.reqPerS)} / ${int(r.ceiling.reqPerS)} = ${pct(share)}`,
      target: `>= ${pct(GLOBAL_SHARE_TARGET)}`,
      met: share >= GLOBAL_SHARE_TARGET,
    });
  }
  for (const f of r.fixedRate) {
    // The rate must actually have been reached for the p99 to count.
    const reached = f.load.reqPerS >= 0.95 * f.rate;
    out.push({
      figure: `${f.strategy} p99 at ${int(f.rate)} req/s (-c ${f.connections}), ${f.label}`,
      measured: `${ms(f.load.p99)} ms (${int(f.load.reqPerS)} req/s reached)`,
      target: `< ${FIXED_P99_TARGET_MS} ms`,
      met: reached && f.load.p99 < FIXED_P99_TARGET_MS,
    });
  }
  if (r.retrain) {
    for (const [when, w] of [
      ["during the retrain", r.retrain.during],
      ["first seconds of the new model", r.retrain.after],
    ] as const) {
      out.push({
        figure: `personalized p99 ${when}`,
        measured: `${ms(w.p99)} ms (${int(w.requests)} answers)`,
        target: `< ${FIXED_P99_TARGET_MS} ms`,
        met: w.p99 < FIXED_P99_TARGET_MS,
      });
    }
  }
  out.push({
    figure: "index memory (RSS loaded - RSS empty)",
    measured: `${r.memory.indexMb.toFixed(0)} MB`,
    target: `< ${INDEX_MB_TARGET} MB`,
    met: r.memory.indexMb < INDEX_MB_TARGET,
  });
  const ceilingRuns: { non2xx: number; errors: number }[] = [...r.ceilings, ...r.ceilings.flatMap((c) => c.fixedRate.map((f) => f.load))];
  const bad = [...r.strategies, ...r.fixedRate].reduce((a, x) => a + fails(x.load), 0) + ceilingRuns.reduce((a, c) => a + fails(c), 0);
  out.push({ figure: "every answer 200 (non-2xx + connection errors)", measured: String(bad), target: "0", met: bad === 0 });
  return out;
}

export function report(r: Results): string {
  const m = r.manifest;
  const load = m.load;
  const st = r.start;
  const busy = (when: string, list: string[]) => (list.length ? `BUSY ${when}: ${list.join("; ")}` : `no other benchmark or test ${when}`);
  const runs: { otherCores: number }[] = [
    ...r.ceilings,
    ...r.ceilings.flatMap((c) => c.fixedRate.map((f) => f.load)),
    ...r.strategies.map((x) => x.load),
    ...r.fixedRate.map((x) => x.load),
  ];
  const otherMax = Math.max(...runs.map((x) => x.otherCores));
  return (
    [
      "",
      `Recommend benchmark — scale ${r.scale} (${specLine(m.spec)}), ${r.settings.durationS}s per run, -c ${r.settings.connections}, loopback, ${r.date}`,
      `${r.machine.cores} cores; load average (1 min) ${r.machine.loadAverageStart.toFixed(2)} at start, ${r.machine.loadAverageEnd.toFixed(2)} at end`,
      `${busy("at start", r.machine.busyAtStart)}; ${busy("at end", r.machine.busyAtEnd)}`,
      `other work on the machine during the measured runs: up to ${otherMax.toFixed(2)} cores (column "other"; above ~0.2 the figures are skewed)`,
      "",
      `Load through the ingest API (${r.loadedNow ? "this run" : `reused data loaded ${m.loadedAt}`}):`,
      table(
        ["records", "count", "seconds", "per second", "requests", "pushed back (503/429)"],
        (["items", "users", "events"] as const).map((k) => [
          k,
          int(load[k].records),
          load[k].seconds.toFixed(1),
          int(load[k].perS),
          int(load[k].requests),
          int(load[k].retries),
        ]),
      ),
      "",
      "Start on the loaded data (LOG_LEVEL=info):",
      table(
        ["figure", "value"],
        [
          ["spawn to listening (database, migrations, index)", `${int(st.startMs)} ms`],
          ...st.shards.map((s) => [
            `index built, shard ${s.shard}${s === st.orgShard ? " (the organisation's)" : ""}`,
            `${int(s.ms)} ms, ${int(s.events)} events, ${s.orgs} orgs`,
          ]),
          [
            "ALS training (after listening)",
            `${int(st.als.ms)} ms (${int(st.als.users)} users × ${int(st.als.items)} items, ${int(st.als.interactions)} interactions)`,
          ],
          ["listening to the model in place (training set, training, swap)", `${int(st.modelAfterListeningMs)} ms`],
          [
            "cores busy meanwhile: server / PostgreSQL / other work",
            `${st.cpu.serverCores.toFixed(2)} / ${st.cpu.pgCores.toFixed(2)} / ${st.cpu.otherCores.toFixed(2)}`,
          ],
          ["RSS, loaded, index built and model trained", `${r.memory.loadedRssMb.toFixed(0)} MB (peak while starting ${st.peakRssMb.toFixed(0)} MB)`],
          ["RSS, same server on an empty database", `${r.memory.emptyRssMb.toFixed(0)} MB`],
          ["index memory (the difference)", `${r.memory.indexMb.toFixed(0)} MB`],
          ["RSS after the load runs below", `${r.memory.afterLoadRssMb.toFixed(0)} MB`],
          ...(r.retrain ? [["RSS after the retrain phase", `${r.retrain.rssAfterMb.toFixed(0)} MB`]] : []),
        ],
      ),
      "",
      `Ceiling (same run, before and after the strategies; ratios use the higher): bare uWS, JSON.parse of the body + a canned`,
      `${int(r.ceiling.responseBytes)}-byte recommend answer, same client setup:`,
      ...r.ceilings.map(
        (c, i) =>
          `  ${i === 0 ? "before" : "after "}: ${int(c.reqPerS)} req/s, p50 ${ms(c.p50)} ms, p99 ${ms(c.p99)} ms; cores: endpoint ${c.serverCores.toFixed(2)}, load generator ${c.clientCpuShare.toFixed(2)}, other ${c.otherCores.toFixed(2)}`,
      ),
      "",
      "POST /v1/recommend, limit 20, a random known user or item per request. modes: of 50 sample answers. Cores busy in the",
      "server process (all threads), its PostgreSQL, the load generator (near 1.00: it may be the limit) and other work; of the",
      "server's, its front (main) thread and its busiest other thread (the organisation's recommender shard):",
      table(
        "strategy | modes (sample) | bytes | req/s | vs ceiling | p50 ms | p90 ms | p99 ms | max ms | non-2xx | errors | server | PG | client | other | front | shard",
        r.strategies.map((s) => [
          s.strategy,
          modes(s.sample.modes),
          int(s.sample.meanBytes),
          int(s.load.reqPerS),
          pct(s.load.reqPerS / r.ceiling.reqPerS),
          ms(s.load.p50),
          ms(s.load.p90),
          ms(s.load.p99),
          ms(s.load.max),
          int(s.load.non2xx),
          int(s.load.errors),
          ...cores(s.load),
          ...threadCells(s.threads),
        ]),
      ),
      "",
      `Fixed rate, our paced client: request i scheduled at i/rate and sent on connection i mod conns (keep-alive, one in`,
      `flight each), ${r.settings.fixedDurationS}s per run; latency from each request's scheduled slot (a request waiting behind a slow answer`,
      `on its connection counts its wait). "from send": p99 timed from the write instead; "lag": p99 of how late requests`,
      `left their slot (Node's timers fire on whole ms). bare uWS: the ceiling's canned endpoint, the client's own floor:`,
      table(
        "strategy | when | rate | conns | reached req/s | p50 ms | p90 ms | p99 ms | max ms | from send | lag | non-2xx | errors | server | PG | client | other | front | shard",
        [
          ...r.ceilings.flatMap((c) => c.fixedRate).map((f) => ["bare uWS (canned)", "-", ...pacedCells(f.rate, f.connections, f.load), "-", "-"]),
          ...r.fixedRate.map((f) => [f.strategy, f.label, ...pacedCells(f.rate, f.connections, f.load), ...threadCells(f.threads)]),
        ],
      ),
      ...(r.retrain ? retrainLines(r.retrain) : []),
      "",
      "Targets:",
      table(
        ["figure", "measured", "target", ""],
        targets(r).map((t) => [t.figure, t.measured, t.target, t.met ? "met" : "MISSED"]),
      ),
      "",
    ].join("\n") + "\n"
  );
}

const pacedCells = (rate: number, connections: number, l: PacedResult) => [
  int(rate),
  String(connections),
  int(l.reqPerS),
  ms(l.p50),
  ms(l.p90),
  ms(l.p99),
  ms(l.max),
  ms(l.p99FromSend),
  ms(l.sendLagP99),
  int(l.non2xx),
  int(l.errors),
  ...cores(l),
];

function retrainLines(t: RetrainFigures): string[] {
  const row = (when: string, w: Percentiles) => [when, int(w.requests), ms(w.p50), ms(w.p90), ms(w.p99), ms(w.max)];
  return [
    "",
    `Retrain under the fixed rate: one event, the model in place ${int(t.eventToModelMs)} ms later (training ${int(t.trainingMs)} ms); personalized by window:`,
    table(
      ["window", "answers", "p50 ms", "p90 ms", "p99 ms", "max ms"],
      [row("before the event", t.before), row("event to new model", t.during), row("new model, first seconds", t.after)],
    ),
  ];
}

const threadCells = (t: ThreadCores) => [t.front.toFixed(2), t.busiestCores.toFixed(2)];
/** Cores busy in the server, its PostgreSQL, the client and other work, in a closed-loop run or a paced one. */
type Cores = Pick<PacedResult, "serverCores" | "pgCores" | "clientCpuShare" | "otherCores">;
const cores = (l: Cores) => [l.serverCores.toFixed(2), l.pgCores.toFixed(2), l.clientCpuShare.toFixed(2), l.otherCores.toFixed(2)];

function modes(m: Record<string, number>): string {
  return Object.entries(m)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}
