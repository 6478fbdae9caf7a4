/**
 * Cores busy during a run, by who: the lone process, the pair, HAProxy, PostgreSQL (embedded only), this
 * client, and work the benchmark did not start (the machine is shared: a run with other work busy says so).
 */
import { coresDuring as coresOf, type Cores as CoresOf } from "../../kit/cpuShare.js";

export type Cores = CoresOf<"lone" | "pair" | "haproxy">;

export interface Watched {
  lone: number;
  pair: number[];
  haproxy: number;
  /** The embedded cluster's DATA_DIR; undefined when external (its CPU then counts as other work). */
  dataDir: string | undefined;
}

/** Starts counting; call the returned function at the end of the run. */
export function coresDuring(w: Watched): () => Cores {
  return coresOf({ lone: [w.lone], pair: w.pair, haproxy: [w.haproxy] }, w.dataDir);
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
