/** Resident memory of a process, from Linux /proc (NaN elsewhere). */
import { readFileSync } from "node:fs";

const MB = 1024 * 1024;

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
