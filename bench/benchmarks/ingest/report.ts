/** The printed report of bench:ingest: the durable-ingestion table, the ceilings, and the figures against their targets. */
import os from "node:os";
import { CONNECTIONS, DURATION_S, ingestSettingsLine } from "../../kit/settings.js";
import { int, pct, table } from "../../kit/table.js";
import type { UwsCeiling } from "./bareUwsCeiling.js";
import type { ScenarioResult } from "./scenario.js";

export interface Ceilings {
  /** Rows/s COPYed by one client, and by two at once. */
  copy: number;
  copy2: number;
  uws: UwsCeiling;
}

export function report(
  run: { postgresVersion: string; embedded: boolean; loadAverageAtStart: number },
  results: ScenarioResult[],
  ceilings: Ceilings,
): string {
  return (
    [
      "",
      `Ingest benchmark — ${DURATION_S}s per scenario, loopback, PostgreSQL ${run.postgresVersion} (${run.embedded ? "embedded" : "external"}), ${ingestSettingsLine()}`,
      `load average (1 min) at start ${run.loadAverageAtStart.toFixed(2)}, at end ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores (other work on the machine skews every figure)`,
      "",
      "Durable ingestion (202 only after commit). front µs/req: CPU of the server's main thread per request; server/PG CPU:",
      "cores busy in the server process and in PostgreSQL; µs/event: their CPU per stored event (what limits the rate when cores are shared);",
      "other CPU: cores busy in work this benchmark did not start (a figure measured while that is high is not comparable).",
      resultsTable(results),
      "",
      "Ceilings (same run):",
      ceilingsTable(ceilings),
      "",
      "Against the ceilings and targets:",
      targetsTable(results, ceilings),
      "",
    ].join("\n") + "\n"
  );
}

function resultsTable(results: ScenarioResult[]): string {
  return table(
    "events/request | conns | requests | req/s | events/s | p50 ms | p99 ms | commits | front µs/req | server CPU | PG CPU | µs/event | other CPU | acked events | stored | check",
    results.map((r) => [
      String(r.n),
      String(r.connections),
      int(r.load.requests),
      int(r.load.reqPerS),
      int(r.eventsPerS),
      r.load.p50.toFixed(1),
      r.load.p99.toFixed(1),
      int(r.commits),
      int(r.frontCpuUsPerReq),
      pct(r.serverCpuShare),
      pct(r.postgresCpuShare),
      r.cpuUsPerEvent.toFixed(1),
      pct(r.otherCores),
      int(r.expected),
      int(r.stored),
      check(r),
    ]),
  );
}

/** Every acknowledged event stored, and nothing but 202s. */
function check(r: ScenarioResult): string {
  return r.stored === r.expected && r.load.other === 0 && r.load.errors === 0
    ? "ok"
    : `MISMATCH (non-202: ${r.load.other}, errors: ${r.load.errors})`;
}

function ceilingsTable(c: Ceilings): string {
  return table(
    ["ceiling", "figure"],
    [
      ["(a) direct COPY, one client, 10,000 rows per COPY", `${int(c.copy)} rows/s`],
      ["(a') the same from two clients at once (for reference)", `${int(c.copy2)} rows/s`],
      [
        `(b) bare uWS, JSON.parse + 202, 1-event bodies, -c ${CONNECTIONS}`,
        `${int(c.uws.reqPerS)} req/s (p50 ${c.uws.p50.toFixed(1)} ms, p99 ${c.uws.p99.toFixed(1)} ms, ${int(c.uws.frontCpuUsPerReq)} µs CPU/req, other CPU ${pct(c.uws.otherCores)})`,
      ],
    ],
  );
}

const verdict = (met: boolean) => (met ? "met" : "MISSED");

function targetsTable(results: ScenarioResult[], c: Ceilings): string {
  const rows: string[][] = [];
  const big = results.find((r) => r.n === 1000);
  const single = results.find((r) => r.n === 1);
  if (big) {
    rows.push([
      "1,000-event arrays vs direct COPY",
      `${int(big.eventsPerS)} / ${int(c.copy)}`,
      pct(big.eventsPerS / c.copy),
      ">= 80%",
      verdict(big.eventsPerS >= 0.8 * c.copy),
    ]);
    rows.push(["1,000-event arrays, durable events/s", int(big.eventsPerS), "", ">= 50,000", verdict(big.eventsPerS >= 50_000)]);
    rows.push([
      "1,000-event arrays vs two-client COPY",
      `${int(big.eventsPerS)} / ${int(c.copy2)}`,
      pct(big.eventsPerS / c.copy2),
      "(reference)",
      "",
    ]);
  }
  for (const r of results.filter((x) => x.n !== 1 && x.n !== 1000)) {
    rows.push([`${r.n}-event arrays vs direct COPY`, `${int(r.eventsPerS)} / ${int(c.copy)}`, pct(r.eventsPerS / c.copy), "", ""]);
  }
  if (single) {
    rows.push([
      "single-event req/s vs bare uWS",
      `${int(single.load.reqPerS)} / ${int(c.uws.reqPerS)}`,
      pct(single.load.reqPerS / c.uws.reqPerS),
      ">= 50%",
      verdict(single.load.reqPerS >= 0.5 * c.uws.reqPerS),
    ]);
  }
  return table(["figure", "measured / ceiling", "ratio", "target", ""], rows);
}
