/** CPU time of processes and threads, from Linux /proc (NaN or empty elsewhere). */
import { readdirSync, readFileSync } from "node:fs";
import { postmasterPid } from "./storage.js";

const TICKS_PER_S = 100;

/** A /proc stat file: its command name, and the fields after it (the name may hold spaces; index 0 is the state). */
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

/** CPU seconds a process has used so far in user space and in the kernel (NaN when it cannot be read). */
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

/** CPU seconds used so far by a PostgreSQL cluster: the postmaster, its live children and those it reaped. */
export function postgresCpuSeconds(dataDir: string | undefined): number {
  if (!dataDir) return NaN;
  try {
    const pm = postmasterPid(dataDir);
    let ticks = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let fields: string[];
      try {
        fields = readStat(`/proc/${entry}/stat`).fields;
      } catch {
        continue;
      }
      // The postmaster's cutime + cstime hold the children it has reaped (backends come and go).
      if (Number(entry) === pm) ticks += ownTicks(fields) + Number(fields[13]) + Number(fields[14]);
      else if (Number(fields[1]) === pm) ticks += ownTicks(fields);
    }
    return ticks / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU seconds spread over `count` things, in microseconds each. */
export function usPer(cpuS: number, count: number): number {
  return (cpuS * 1e6) / Math.max(1, count);
}
