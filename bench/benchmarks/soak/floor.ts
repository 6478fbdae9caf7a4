/** The client's own floor: the soak's mix, at its rate, against a bare uWS endpoint (bench/benchmarks/traffic/uwsCeiling.ts). */
import { stopChild } from "../../kit/processes.js";
import { startUwsCeiling } from "../traffic/uwsCeilingProcess.js";
import { cpuShare } from "../../kit/cpuShare.js";
import { KINDS, Mix, type Kind } from "./mix.js";
import { newOrg, orgSpec } from "./orgs.js";
import { floorReport } from "./report.js";
import { Tally } from "./tally.js";
import { drive } from "./traffic.js";

export interface Floor {
  p99: Record<Kind, number>;
  report: string;
}

export async function measureFloor(rate: number, seconds: number, orgCount: number): Promise<Floor> {
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
