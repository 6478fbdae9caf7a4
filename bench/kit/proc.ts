/**
 * What Linux's /proc says of processes, threads and the machine: CPU time and memory (NaN or empty elsewhere, or
 * once a process is gone). The one place bench/ reads /proc.
 */
import { readdirSync, readFileSync } from "node:fs";
import { postmasterPid } from "./storage.js";

const TICKS_PER_S = 100;
const MB = 1024 * 1024;

/** A /proc stat file: its command name, and the fields after it (the name may hold spaces; index 0 is the state, 1 the parent). */
function readStat(file: string): { comm: string; fields: string[] } {
  const f = readFileSync(file, "utf8");
  return { comm: f.slice(f.indexOf("(") + 1, f.lastIndexOf(")")), fields: f.slice(f.lastIndexOf(")") + 2).split(" ") };
}

/** utime + stime of a stat line, in ticks. */
const ownTicks = (fields: string[]) => Number(fields[11]) + Number(fields[12]);

function statSeconds(file: string): number {
  try {
    return ownTicks(readStat(file).fields) / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU seconds a process has used so far in user space and in the kernel. */
export function userSystemSeconds(pid: number): { user: number; system: number } {
  try {
    const { fields } = readStat(`/proc/${pid}/stat`);
    return { user: Number(fields[11]) / TICKS_PER_S, system: Number(fields[12]) / TICKS_PER_S };
  } catch {
    return { user: NaN, system: NaN };
  }
}

/** CPU seconds used so far by a process (all threads) and by its main thread. */
export function cpuSeconds(pid: number | undefined): { all: number; main: number } {
  if (pid === undefined) return { all: NaN, main: NaN };
  return { all: statSeconds(`/proc/${pid}/stat`), main: statSeconds(`/proc/${pid}/task/${pid}/stat`) };
}

/** CPU seconds per thread of a process, keyed `name#tid`, for the breakdown of where the server's time goes. */
export function threadCpu(pid: number | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (pid === undefined) return out;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const { comm, fields } = readStat(`/proc/${pid}/task/${tid}/stat`);
        out.set(`${comm}#${tid}`, ownTicks(fields) / TICKS_PER_S);
      } catch {
        // thread ended
      }
    }
  } catch {
    // not Linux
  }
  return out;
}

/** The stat fields of an embedded PostgreSQL cluster's postmaster and of its live children, by pid. */
function postgresStats(dataDir: string): { postmaster: number; stats: Map<number, string[]> } {
  const postmaster = postmasterPid(dataDir);
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { fields } = readStat(`/proc/${entry}/stat`);
      if (Number(entry) === postmaster || Number(fields[1]) === postmaster) stats.set(Number(entry), fields);
    } catch {
      // ended meanwhile
    }
  }
  return { postmaster, stats };
}

/** CPU seconds used so far by a PostgreSQL cluster: the postmaster, its live children and those it reaped. */
export function postgresCpuSeconds(dataDir: string | undefined): number {
  if (!dataDir) return NaN;
  try {
    const { postmaster, stats } = postgresStats(dataDir);
    let ticks = 0;
    // The postmaster's cutime + cstime hold the children it has reaped (backends come and go).
    for (const [pid, fields] of stats) ticks += ownTicks(fields) + (pid === postmaster ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine has been busy (every state but idle and iowait), from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU seconds this process has used since `since` (process.cpuUsage()), user and kernel. */
export function ownCpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

/** CPU seconds spread over `count` things, in microseconds each. */
export function usPer(cpuS: number, count: number): number {
  return (cpuS * 1e6) / Math.max(1, count);
}

function statusKb(pid: number | undefined, field: string): number {
  if (pid === undefined) return NaN;
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** Current resident set, in MB (all threads: front, writers, recommender shards, trainer). */
export const rssMb = (pid: number | undefined): number => (statusKb(pid, "VmRSS") * 1024) / MB;
/** The highest resident set so far, in MB. */
export const peakRssMb = (pid: number | undefined): number => (statusKb(pid, "VmHWM") * 1024) / MB;

/**
 * An embedded PostgreSQL cluster's memory, in MB: a postmaster and its children share memory, so their RSS would
 * count it once per process; the sum of their proportional sets (Pss) counts shared pages once in all. Its shared
 * part grows as shared_buffers pages are first touched, up to their size (a cache filling); the private part
 * (Pss - Pss_Shmem: each backend's caches, the writers' staging tables) is where a leak shows.
 */
export function postgresMemory(dataDir: string | undefined): { totalMb: number; privateMb: number } {
  if (!dataDir) return { totalMb: NaN, privateMb: NaN };
  try {
    let pss = 0;
    let shmem = 0;
    for (const pid of postgresStats(dataDir).stats.keys()) {
      try {
        const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
        const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
        pss += field("Pss");
        shmem += field("Pss_Shmem");
      } catch {
        // ended meanwhile
      }
    }
    return { totalMb: pss / 1024, privateMb: (pss - shmem) / 1024 };
  } catch {
    return { totalMb: NaN, privateMb: NaN };
  }
}
