/**
 * Memory of the processes under soak, from Linux /proc (NaN elsewhere). The server is one process (front,
 * writer, recommender and training threads share its address space), so its VmRSS is all of it. PostgreSQL is
 * a postmaster and its children sharing shared memory: their RSS would count that memory once per process,
 * so the cluster's figure is the sum of their proportional sets (Pss), which counts shared pages once in all.
 * Its shared part grows as shared_buffers pages are first touched, up to their size (a cache filling); the
 * private part (each backend's own: caches, temp_buffers of the writers' staging tables) is where a leak shows.
 */
import { readdirSync, readFileSync } from "node:fs";
import { postmasterPid } from "../../kit/storage.js";

export interface PostgresMemory {
  /** Sum of Pss, MB. */
  totalMb: number;
  /** Sum of Pss outside shared memory (Pss - Pss_Shmem), MB. */
  privateMb: number;
}

function pssKb(pid: number): { pss: number; shmem: number } {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
    return { pss: field("Pss"), shmem: field("Pss_Shmem") };
  } catch {
    return { pss: 0, shmem: 0 }; // ended meanwhile
  }
}

function parentOf(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return -1;
  }
}

/** The embedded cluster's memory: its postmaster and its live children. */
export function postgresMemory(dataDir: string | undefined): PostgresMemory {
  if (!dataDir) return { totalMb: NaN, privateMb: NaN };
  try {
    const pm = postmasterPid(dataDir);
    const pids = [
      pm,
      ...readdirSync("/proc")
        .filter((e) => /^\d+$/.test(e) && parentOf(e) === pm)
        .map(Number),
    ];
    let pss = 0;
    let shmem = 0;
    for (const p of pids) {
      const m = pssKb(p);
      pss += m.pss;
      shmem += m.shmem;
    }
    return { totalMb: pss / 1024, privateMb: (pss - shmem) / 1024 };
  } catch {
    return { totalMb: NaN, privateMb: NaN };
  }
}
