/** The printed report of bench:cluster: every run, the two setups side by side with their ratio, freshness, and HAProxy's own cost. */
import os from "node:os";
import { int, ms, table } from "../../kit/table.js";
import type { BaselineRun } from "./haproxy.js";
import type { Freshness } from "./freshness.js";
import type { RunFigures } from "./runs.js";

export type Setup = "lone" | "pair";

export interface ScenarioRun {
  scenario: string;
  setup: Setup;
  round: number;
  connections: number;
  /** Seconds waited before the run for the processes to be quiet. */
  settledS: number;
  figures: RunFigures;
}

export interface Report {
  header: string[];
  runs: ScenarioRun[];
  freshness: Array<{ kind: string; figures: Freshness }>;
  freshnessLoad: string;
  baseline: BaselineRun[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const rate = (f: RunFigures) => (Number.isNaN(f.eventsPerS) ? f.reqPerS : f.eventsPerS);
const c2 = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(2));

function runsTable(runs: ScenarioRun[]): string {
  return table(
    "scenario | setup | round | quiet s | -c | events/s | req/s | p50 ms | p99 ms | failed | lone | pair | haproxy | PG | client | other",
    runs.map((r) => {
      const f = r.figures;
      return [
        r.scenario,
        r.setup === "lone" ? "one process" : "two + HAProxy",
        String(r.round),
        r.settledS.toFixed(1),
        String(r.connections),
        Number.isNaN(f.eventsPerS) ? "" : int(f.eventsPerS),
        int(f.reqPerS),
        ms(f.p50),
        ms(f.p99),
        String(f.failed),
        c2(f.cores.lone),
        c2(f.cores.pair),
        c2(f.cores.haproxy),
        c2(f.cores.postgres),
        c2(f.cores.client),
        c2(f.cores.other),
      ];
    }),
  );
}

function summaryTable(runs: ScenarioRun[]): string {
  const scenarios = [...new Set(runs.map((r) => r.scenario))];
  return table(
    ["scenario", "unit", "one process (each run)", "two + HAProxy (each run)", "two/one (means)", "p50 one/two", "p99 one/two"],
    scenarios.map((s) => {
      const of = (setup: Setup) => runs.filter((r) => r.scenario === s && r.setup === setup).map((r) => r.figures);
      const lone = of("lone");
      const pair = of("pair");
      const unit = Number.isNaN(lone[0]?.eventsPerS ?? NaN) ? "req/s" : "events/s";
      const list = (fs: RunFigures[]) => fs.map((f) => int(rate(f))).join(" / ");
      const p = (fs: RunFigures[], k: "p50" | "p99") => ms(median(fs.map((f) => f[k])));
      return [
        s,
        unit,
        list(lone),
        list(pair),
        c2(mean(pair.map(rate)) / mean(lone.map(rate))),
        `${p(lone, "p50")} / ${p(pair, "p50")}`,
        `${p(lone, "p99")} / ${p(pair, "p99")}`,
      ];
    }),
  );
}

function baselineTable(runs: BaselineRun[]): string {
  const direct = runs.filter((r) => r.through === "direct");
  const via = runs.filter((r) => r.through === "haproxy");
  const list = (rs: BaselineRun[]) => rs.map((r) => int(r.reqPerS)).join(" / ");
  return table(
    ["bare uWS endpoint, 1-event bodies", "req/s (each run)", "p50 ms (median)", "p99 ms (median)", "HAProxy CPU µs/req"],
    [
      ["directly", list(direct), ms(median(direct.map((r) => r.p50))), ms(median(direct.map((r) => r.p99))), ""],
      [
        "through HAProxy",
        list(via),
        ms(median(via.map((r) => r.p50))),
        ms(median(via.map((r) => r.p99))),
        ms(median(via.map((r) => r.haproxyUsPerReq))),
      ],
    ],
  );
}

export function report(r: Report, loadAverageAtStart: number): string {
  const out = [
    "",
    ...r.header,
    `load average (1 min) at start ${loadAverageAtStart.toFixed(2)}, at end ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores (other work on the machine skews every figure)`,
    "",
    "Throughput: one process (CLUSTER=0) directly, against two processes (CLUSTER=1) behind HAProxy, alternated. Each run is",
    "closed loop (autocannon, -c connections, each sending its next prebuilt request when answered; no overallRate). Cores:",
    "CPU busy during the run in the lone process, the pair, HAProxy, PostgreSQL (embedded only: an external one's counts as other), this client, and other work.",
    "quiet s: seconds waited before the run until the processes were quiet (a training left by the previous run, say; at most 60).",
    runsTable(r.runs),
    "",
    summaryTable(r.runs),
    "",
    "On two cores the pair cannot be faster: both processes, HAProxy, PostgreSQL and the client share the same cores, and",
    "with CLUSTER=1 each process also logs its batches and applies every batch the other commits (one of them trains). The",
    "ratio is the overhead. With a core or more per process (or one machine each), each process's front thread, the",
    "usual limit, is its own, so throughput would add up, less what announcing and applying batches costs PostgreSQL",
    "and the other process.",
  ];
  if (r.freshness.length > 0) {
    out.push(
      "",
      `Freshness across the pair (issue 27 2b; goal p99 ≤ 1,000 ms): a change sent to one process directly, the other asked every`,
      `few ms until its answer shows it; ms from the first process's 202 to that answer. ${r.freshnessLoad}`,
      table(
        ["change", "samples", "missed", "p50 ms", "p99 ms", "max ms"],
        r.freshness.map(({ kind, figures: f }) => [kind, String(f.samples), String(f.missed), ms(f.p50), ms(f.p99), ms(f.max)]),
      ),
    );
  }
  if (r.baseline.length > 0)
    out.push(
      "",
      "HAProxy's own cost per request: the same bare endpoint, directly and through docs/haproxy.cfg, alternated.",
      baselineTable(r.baseline),
    );
  return out.join("\n") + "\n";
}
