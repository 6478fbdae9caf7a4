/** One row per minute: the server's and PostgreSQL's memory, where the CPU went, and each kind's figures. */
import type { Latencies } from "../../kit/latencies.js";
import { postgresMemory, rssMb } from "../../kit/proc.js";
import { coresDuring } from "../../kit/cpuShare.js";
import type { Child } from "../../kit/processes.js";
import { KINDS, type Kind } from "./mix.js";
import { logCounts } from "../../kit/serverLog.js";
import { non2xx, type KindCounts } from "./tally.js";

export type KindMinute = ReturnType<typeof kindMinute>;

export interface MinuteRow {
  minute: number;
  serverRssMb: number;
  postgresPssMb: number;
  /** PostgreSQL's memory outside shared memory (see memory.ts). */
  postgresPrivateMb: number;
  /** Cores busy in the server, in PostgreSQL, in this client, and in everything else on the machine (other helpers' work). */
  cores: { server: number; postgres: number; client: number; other: number };
  inFlight: number;
  /** The client's lateness in handing requests over (due time to send): when high, the client stalled, not the server. */
  clientLag: { p99: number; max: number };
  trainings: number;
  warnings: number;
  errors: number;
  kinds: Record<Kind, KindMinute>;
  notes: string[];
}

export function kindMinute(c: KindCounts) {
  const [p50, p99, max] = c.latency.percentiles([0.5, 0.99, 1]);
  return { sent: c.sent, answered: c.answered, non2xx: non2xx(c), p50: p50!, p99: p99!, max: max! };
}

/** A sampler to call at each minute's end: CPU and log counts are since its previous call. */
export function minuteSampler(
  server: Child,
  dataDir: string | undefined,
): (minute: number, counts: Record<Kind, KindCounts>, lag: Latencies | undefined, inFlight: number, notes: string[]) => MinuteRow {
  const pid = server.proc.pid;
  let cpu = coresDuring({ server: [pid] }, dataDir);
  let logs = logCounts(server);
  return (minute, counts, lag, inFlight, notes) => {
    const [lagP99, lagMax] = lag?.percentiles([0.99, 1]) ?? [NaN, NaN];
    const cores = cpu();
    cpu = coresDuring({ server: [pid] }, dataDir);
    const nowLogs = logCounts(server);
    const pgMemory = postgresMemory(dataDir);
    const row: MinuteRow = {
      minute,
      serverRssMb: rssMb(pid),
      postgresPssMb: pgMemory.totalMb,
      postgresPrivateMb: pgMemory.privateMb,
      cores: { ...cores, postgres: cores.postgres || 0 },
      inFlight,
      clientLag: { p99: lagP99!, max: lagMax! },
      trainings: nowLogs.trainings - logs.trainings,
      warnings: nowLogs.warnings - logs.warnings,
      errors: nowLogs.errors - logs.errors,
      kinds: Object.fromEntries(KINDS.map((k) => [k, kindMinute(counts[k])])) as Record<Kind, KindMinute>,
      notes,
    };
    logs = nowLogs;
    return row;
  };
}
