/**
 * Phase 2: the server started on data already stored, with what it costs: index build time per shard (its
 * `recommender index built` lines), ALS training time (`recommender model trained`), and resident memory
 * once both are done; and, for the difference, the same server started on an empty database.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Storage } from "../../kit/storage.js";
import { startServer, stopChild, withFreshServer } from "../../kit/processes.js";
import { log } from "../../kit/settings.js";
import { sinceSpawn } from "../../kit/cpuShare.js";
import { peakRssMb, rssMb } from "../../kit/proc.js";
import { logLines, waitForLog } from "../../kit/serverLog.js";

/** Building 5M events' index, then training, takes minutes on a small machine. */
const START_TIMEOUT_MS = 30 * 60_000;
const TRAIN_TIMEOUT_MS = 60 * 60_000;
/** Let the heap settle after the last big allocation (training matrix, load buffers) before reading RSS. */
const SETTLE_MS = 5_000;
const SERVER_ENV = { LOG_LEVEL: "info" };
/** With the retrain phase: one new event is enough to retrain (no events arrive otherwise, so nothing else changes). */
const RETRAIN_ENV = { ...SERVER_ENV, RECOMMEND_RETRAIN_S: "1" };

export type StartFigures = Awaited<ReturnType<typeof startOnData>>["figures"];

/** RSS of the server started on an empty database: what the process costs before any organisation's index. */
export function emptyServerRss(): Promise<number> {
  return withFreshServer(SERVER_ENV, async ({ server }) => {
    await sleep(SETTLE_MS);
    return rssMb(server.proc.pid);
  });
}

export async function startOnData(storage: Storage, orgSeq: number, retrainOnEvent = false) {
  const t0 = performance.now();
  const cpu = sinceSpawn();
  const { server, url } = await startServer(storage, retrainOnEvent ? RETRAIN_ENV : SERVER_ENV, START_TIMEOUT_MS);
  try {
    const startMs = performance.now() - t0;
    const listeningAt = Date.now();
    // The server listens only once every shard has built its index, so these lines are all there.
    const shards = logLines(server, "recommender index built").map((l) => ({
      shard: Number(l.shard),
      orgs: Number(l.orgs),
      events: Number(l.events),
      ms: Number(l.ms),
    }));
    const orgShard = shards.find((s) => s.shard === orgSeq % shards.length);
    if (!orgShard) throw new Error(`no "recommender index built" line for the organisation's shard: ${JSON.stringify(shards)}`);
    log(`index built: ${shards.map((s) => `shard ${s.shard} ${s.events} events in ${s.ms} ms`).join(", ")}; waiting for the model`);
    const trained = await waitForLog(server, "recommender model trained", (l) => Number(l.org) === orgSeq, TRAIN_TIMEOUT_MS);
    const als = { ms: Number(trained.ms), users: Number(trained.users), items: Number(trained.items), interactions: Number(trained.interactions) };
    log(`model trained in ${als.ms} ms; settling ${SETTLE_MS / 1000}s before reading RSS`);
    await sleep(SETTLE_MS);
    const figures = {
      startMs, // spawn to listening (database start, migrations, index build)
      shards,
      orgShard, // the shard that holds the benchmark's organisation
      als,
      // From listening to the model's log line: the training set, the training and the swap, as serving saw them.
      modelAfterListeningMs: Date.parse(trained.t) - listeningAt,
      rssMb: rssMb(server.proc.pid),
      peakRssMb: peakRssMb(server.proc.pid), // the highest resident set while starting (index build and training included)
      // Cores busy from spawn to trained model: the server (+ PostgreSQL), and other work on the machine.
      cpu: cpu({ pid: server.proc.pid, dataDir: storage.dataDir }),
    };
    return { server, url, figures };
  } catch (err) {
    await stopChild(server);
    throw err;
  }
}
