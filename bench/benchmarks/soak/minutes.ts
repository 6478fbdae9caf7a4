/** One row per minute: the server's and PostgreSQL's memory, where the CPU went, and each kind's figures. */
import type { Latencies } from "../../kit/latencies.js";
import { postgresMemory, rssMb } from "../../kit/proc.js";
import { coresDuring } from "../../kit/cpuShare.js";
import type { Child } from "../../kit/processes.js";
import { KINDS, type Kind } from "./mix.js";
import { logCounts } from "../../kit/serverLog.js";
import { non2xx, type KindCounts } from "./tally.js";

export type KindMinute = ReturnType<typeof kindMinute>;

export type MinuteRow = ReturnType<ReturnType<typeof minuteSampler>>;

export function kindMinute(c: KindCounts) {
  const [p50, p99, max] = c.latency.percentiles([0.5, 0.99, 1]);
  return { sent: c.sent, answered: c.answered, non2xx: non2xx(c), p50: p50!, p99: p99!, max: max! };
}

/** A sampler to call at each minute's end: CPU and log counts are since its previous call. */
export function minuteSampler(server: Child, dataDir: string | undefined) {
  const pid = server.proc.pid;
  let cpu = coresDuring({ server: [pid] }, dataDir);
  let logs = logCounts(server);
  return (minute: number, counts: Record<Kind, KindCounts>, lag: Latencies | undefined, inFlight: number, notes: string[]) => {
    const [lagP99, lagMax] = lag?.percentiles([0.99, 1]) ?? [NaN, NaN];
    const cores = cpu();
    cpu = coresDuring({ server: [pid] }, dataDir);
    const nowLogs = logCounts(server);
    const pgMemory = postgresMemory(dataDir);
    const row = {
      minute,
      serverRssMb: rssMb(pid),
      postgresPssMb: pgMemory.totalMb,
      postgresPrivateMb: pgMemory.privateMb, // outside shared memory (see proc.ts)
      // Cores busy in the server, in PostgreSQL, in this client, and in everything else on the machine (other helpers' work).
      cores: { ...cores, postgres: cores.postgres || 0 },
      inFlight,
      // The client's lateness in handing requests over (due time to send): when high, the client stalled, not the server.
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
