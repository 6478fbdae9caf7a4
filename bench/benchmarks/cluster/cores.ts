/**
 * Cores busy during a run, by who: the lone process, the pair, HAProxy, PostgreSQL (embedded only), this
 * client, and work the benchmark did not start (the machine is shared: a run with other work busy says so).
 */
import { cpuSeconds, postgresCpuSeconds } from "../../kit/proc.js";
import { machineBusySeconds } from "../../kit/cpuShare.js";

export interface Cores {
  lone: number;
  pair: number;
  haproxy: number;
  /** NaN with an external PostgreSQL. */
  postgres: number;
  client: number;
  other: number;
}

export interface Watched {
  lone: number;
  pair: number[];
  haproxy: number;
  /** The embedded cluster's DATA_DIR; undefined when external (its CPU then counts as other work). */
  dataDir: string | undefined;
}

const sum = (pids: number[]) => pids.reduce((s, pid) => s + (cpuSeconds(pid).all || 0), 0);

function snapshot(w: Watched) {
  const self = process.cpuUsage();
  // An external PostgreSQL's CPU cannot be read from here: NaN, and it counts as other work.
  const pg = w.dataDir ? postgresCpuSeconds(w.dataDir) : NaN;
  return {
    at: performance.now(),
    machine: machineBusySeconds(),
    lone: sum([w.lone]),
    pair: sum(w.pair),
    haproxy: sum([w.haproxy]),
    postgres: pg,
    client: (self.user + self.system) / 1e6,
  };
}

/** Starts counting; call the returned function at the end of the run. */
export function coresDuring(w: Watched): () => Cores {
  const a = snapshot(w);
  return () => {
    const b = snapshot(w);
    const s = (b.at - a.at) / 1000;
    const d = (k: Exclude<keyof typeof a, "at" | "machine">) => (b[k] - a[k]) / s;
    const ours = d("lone") + d("pair") + d("haproxy") + (d("postgres") || 0) + d("client");
    return {
      lone: d("lone"),
      pair: d("pair"),
      haproxy: d("haproxy"),
      postgres: d("postgres"),
      client: d("client"),
      other: Math.max(0, (b.machine - a.machine) / s - ours),
    };
  };
}

const QUIET_CORES = 0.1;
const QUIET_WINDOW_MS = 500;
/** Quiet windows in a row: a deferred retrain may start a moment after the load stops. */
const QUIET_WINDOWS = 3;

/**
 * Waits until the benchmark's processes are quiet (under QUIET_CORES between them for QUIET_WINDOWS windows of QUIET_WINDOW_MS), at
 * most `maxMs`, and returns how long that took. Between runs the processes just loaded still train the
 * organisation or apply the other's batches; a run started meanwhile would pay for the previous one.
 */
export async function settle(w: Watched, maxMs: number): Promise<number> {
  const start = performance.now();
  let quiet = 0;
  for (;;) {
    const during = coresDuring(w);
    await new Promise((r) => setTimeout(r, QUIET_WINDOW_MS));
    const c = during();
    const elapsed = performance.now() - start;
    quiet = c.lone + c.pair + c.haproxy + (c.postgres || 0) < QUIET_CORES ? quiet + 1 : 0;
    if (quiet === QUIET_WINDOWS || elapsed >= maxMs) return elapsed;
  }
}
