/**
 * Where the machine's CPU went during a run: cores busy in the processes the benchmark runs (the server or a
 * ceiling endpoint; the lone process, the pair and HAProxy in bench:cluster), their embedded PostgreSQL, this
 * client, and anything else. The machine is shared with other work; a figure measured while others held a core
 * says so next to it.
 */
import { cpuSeconds, machineBusySeconds, ownCpuSeconds, postgresCpuSeconds } from "./proc.js";

export interface Ours {
  /** The process under load: the server, or the ceiling's endpoint. */
  pid: number | undefined;
  /** The embedded PostgreSQL's DATA_DIR, when there is one. */
  dataDir?: string;
}

export interface CpuShare {
  /** Cores busy in the process under load (all its threads). */
  serverCores: number;
  /** Cores busy in its embedded PostgreSQL (0 with an external one, whose CPU counts as other work). */
  pgCores: number;
  /** Cores busy in processes this benchmark did not start. */
  otherCores: number;
}

/** Cores busy in each named group of processes, in the embedded PostgreSQL (NaN when external), this client, and other work. */
export type Cores<K extends string> = Record<K, number> & { postgres: number; client: number; other: number };

type Groups<K extends string> = Record<K, readonly (number | undefined)[]>;

function snapshot<K extends string>(groups: Groups<K>, dataDir: string | undefined) {
  const self = process.cpuUsage();
  const seconds = new Map<K, number>(
    (Object.keys(groups) as K[]).map((k) => [k, groups[k].reduce<number>((s, pid) => s + (cpuSeconds(pid).all || 0), 0)]),
  );
  return {
    at: performance.now(),
    machine: machineBusySeconds(),
    seconds,
    postgres: dataDir ? postgresCpuSeconds(dataDir) : NaN,
    client: (self.user + self.system) / 1e6,
  };
}

/** Starts counting; call the returned function at the end of the run. */
export function coresDuring<K extends string>(groups: Groups<K>, dataDir: string | undefined): () => Cores<K> {
  const a = snapshot(groups, dataDir);
  return () => {
    const b = snapshot(groups, dataDir);
    const s = (b.at - a.at) / 1000;
    const cores = { postgres: (b.postgres - a.postgres) / s, client: (b.client - a.client) / s } as Cores<K>;
    let ours = cores.client + (cores.postgres || 0);
    for (const [k, after] of b.seconds) ours += (cores as Record<K, number>)[k] = (after - a.seconds.get(k)!) / s;
    cores.other = Math.max(0, (b.machine - a.machine) / s - ours);
    return cores;
  };
}

/** Starts counting for one process under load; call the returned function at the end of the run. */
export function cpuShare(o: Ours): () => CpuShare {
  const during = coresDuring({ server: [o.pid] }, o.dataDir);
  return () => {
    const c = during();
    return { serverCores: c.server, pgCores: c.postgres || 0, otherCores: c.other };
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
    const server = cpuSeconds(o.pid).all;
    const pg = (o.dataDir ? postgresCpuSeconds(o.dataDir) : 0) || 0;
    const ours = server + pg + ownCpuSeconds(self);
    return { serverCores: server / s, pgCores: pg / s, otherCores: Math.max(0, (machineBusySeconds() - machine - ours) / s) };
  };
}
