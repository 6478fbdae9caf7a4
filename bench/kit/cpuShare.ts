/**
 * Where the machine's CPU went during a run: cores busy in the processes the benchmark runs (the server or
 * ceiling, its PostgreSQL, the load generator) and cores busy in anything else. The machine is shared with
 * other work; a figure measured while others held a core says so next to it.
 */
import { readFileSync } from "node:fs";
import { cpuSeconds, postgresCpuSeconds } from "./proc.js";

const TICKS_PER_S = 100;

/** CPU seconds the whole machine has been busy (every state but idle and iowait), from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
    void idle;
    void iowait;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

export interface Ours {
  /** The process under load: the server, or the ceiling's endpoint. */
  pid: number | undefined;
  /** The embedded PostgreSQL's DATA_DIR, when there is one. */
  dataDir?: string;
}

export interface CpuShare {
  /** Cores busy in the process under load (all its threads). */
  serverCores: number;
  /** Cores busy in its embedded PostgreSQL (the served-recommendations log is written there). */
  pgCores: number;
  /** Cores busy in processes this benchmark did not start. */
  otherCores: number;
}

/** 0 when there is no embedded cluster to count (external PostgreSQL, or not Linux). */
function pgSeconds(o: Ours): number {
  const pg = o.dataDir ? postgresCpuSeconds(o.dataDir) : 0;
  return Number.isNaN(pg) ? 0 : pg;
}

function snapshot(o: Ours) {
  const self = process.cpuUsage();
  const server = cpuSeconds(o.pid).all;
  const pg = pgSeconds(o);
  return { at: performance.now(), machine: machineBusySeconds(), server, pg, ours: server + pg + (self.user + self.system) / 1e6 };
}

/** Starts counting; call the returned function at the end of the run. */
export function cpuShare(o: Ours): () => CpuShare {
  const a = snapshot(o);
  return () => {
    const b = snapshot(o);
    const s = (b.at - a.at) / 1000;
    return {
      serverCores: (b.server - a.server) / s,
      pgCores: (b.pg - a.pg) / s,
      otherCores: Math.max(0, (b.machine - a.machine - (b.ours - a.ours)) / s),
    };
  };
}

/**
 * The same for a phase that spawns the server: call before spawning, then with the server's pid at the end.
 * A process's CPU counters start at zero when it does, so the server's and its PostgreSQL's totals are the
 * phase's (PostgreSQL must have been started by that server, as the embedded one is).
 */
export function sinceSpawn(): (o: Ours) => CpuShare {
  const at = performance.now();
  const machine = machineBusySeconds();
  const self = process.cpuUsage();
  return (o) => {
    const s = (performance.now() - at) / 1000;
    const own = process.cpuUsage(self);
    const server = cpuSeconds(o.pid).all;
    const pg = pgSeconds(o);
    const ours = server + pg + (own.user + own.system) / 1e6;
    return { serverCores: server / s, pgCores: pg / s, otherCores: Math.max(0, (machineBusySeconds() - machine - ours) / s) };
  };
}
