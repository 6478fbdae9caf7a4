import { parentPort, workerData } from "node:worker_threads";
import { AnswerBatch } from "../../src/wire/answerBatch.js";
import {
  askFromWire,
  packMessage,
  readToShard,
  type AskWire,
  type BatchWire,
  type FromShard,
  type RankAsk,
  type ToShard,
} from "../../src/wire/shardMessages.js";
import { log, setLogLevel } from "../../src/wire/log.js";
import type { RecommenderThreadData } from "../../src/wire/threadData.js";
import { committedBefore, parseXidSnapshot, type XidSnapshot } from "../../src/wire/xidSnapshot.js";
import { loadShard, type LoadHooks } from "./loader.js";
import { BatchQueue } from "./batchQueue.js";
import { FairScheduler } from "./fairScheduler.js";
import { OrgAsks } from "./orgAsks.js";
import { Inbox } from "./inbox.js";
import { LoadProgress } from "./loadProgress.js";
import { ruleBook } from "../strategies/rules/ruleBook.js";
import { Shard } from "./shard.js";
import { SharedTraining } from "./sharedTraining.js";
import { Skips } from "./skips.js";
import { TrainingScheduler } from "./trainingScheduler.js";
import { RecentXids, SnapshotRounds } from "./snapshotRounds.js";
import type { LoadResult, SnapshotOutcome } from "./loader.js";

const data = workerData as RecommenderThreadData;
setLogLevel(data.logLevel);
/**
 * A lane's share of a round: a few cheap asks; an expensive one overruns it and leaves its
 * organisation in debt until the others have had as much time.
 */
const QUANTUM_MS = 0.5;
/**
 * Asks (or batch steps) one lane runs in a turn, at most: only the cheapest asks (under QUANTUM_MS / TURN_MAX)
 * reach it before the quantum, so it bounds by count what another organisation waits without skewing the shares.
 */
const TURN_MAX = 16;
/** Work done at a stretch before the thread reads the messages that came meanwhile (new asks join the round then). */
const SLICE_MS = 2;
/** Organisations live on shard `seq % shards`; a batch may hold other shards' records too. */
const ownsOrg = (org: number): boolean => org % data.shards === data.shard;
const shard = new Shard({ maxTokens: data.orgMaxAttributeTokens, maxBytes: data.orgMaxAttributeBytes }, data.userLimits);
const port = parentPort!;
/** CLUSTER=1: one process trains each organisation, the others load its model. */
const shared =
  data.cluster &&
  new SharedTraining({ databaseUrl: data.databaseUrl, ...data.cluster, shard: data.shard, shards: data.shards, index: (org) => shard.org(org) });
/** CLUSTER=1: the transactions of the other processes' batches applied lately (an index snapshot names those past its position). */
const foreignXids = new RecentXids();
/** The load's position (its PostgreSQL snapshot): another process's batch committed before it is in what the load read (src/cluster/batchFeed.ts). */
let loadPosition: XidSnapshot | undefined;

function send(m: FromShard): void {
  const packed = packMessage(m);
  port.postMessage(packed, [packed.buffer as ArrayBuffer]);
}

/** Answers that waited this long for the rest of their batch leave at once. */
const ANSWER_HOLD_MS = 1;

const answers = new AnswerBatch();
let heldSince = 0;

function sendAnswers(): void {
  if (answers.size === 0) return;
  const batch = answers.take();
  port.postMessage(batch, [batch]);
}

/** Ranks one ask, answering in as few messages as possible without holding an answer long. */
function serve({ id, req }: RankAsk): void {
  if (answers.size === 0) heldSince = performance.now();
  try {
    answers.add(id, shard.rank(req));
  } catch (err) {
    log.error("recommend failed", { shard: data.shard, org: req.org, error: (err as Error).stack });
    answers.fail(id);
  }
  if (performance.now() - heldSince >= ANSWER_HOLD_MS) sendAnswers();
}

/**
 * Each organisation's asks wait in a lane of their own, and the committed batches in one more: the thread serves
 * them by deficit round robin on the time each unit took (fairScheduler.ts), so one organisation's burst, or an
 * upload being applied, delays another organisation's answer by a turn of each, not by all of its work.
 */
const scheduler = new FairScheduler({ quantumMs: QUANTUM_MS, turnMax: TURN_MAX, sliceMs: SLICE_MS, sliceEnded });
const lanes = new Map<number, OrgAsks>();
/** Asks dropped past their deadline since the last report. */
let expired = 0;
const countExpired = (): void => void expired++;

function sliceEnded(): void {
  sendAnswers();
  if (expired === 0) return;
  send({ t: "expired", asks: expired });
  expired = 0;
}

function queueAsks(asks: AskWire[]): void {
  for (const wire of asks) {
    const ask = askFromWire(wire);
    let lane = lanes.get(ask.req.org);
    if (!lane) lanes.set(ask.req.org, (lane = new OrgAsks(serve, countExpired)));
    if (lane.push(ask)) scheduler.wake(lane);
  }
}

/** A preview: ranked at once, between the scheduler's slices (a dashboard's occasional ask, not traffic). */
function explain(id: number, wire: AskWire): void {
  try {
    const { result, explanation } = shard.explain(askFromWire(wire).req);
    send({ t: "explained", id, result, explanation });
  } catch (err) {
    log.error("recommender thread could not explain a ranking", { shard: data.shard, error: (err as Error).stack });
    send({ t: "explained", id, result: undefined, explanation: undefined });
  }
}

/** One message, contained: a message that fails is logged and dropped, and the thread serves every other organisation. */
function handle(m: ToShard, loaded: (org: number) => boolean): void {
  try {
    switch (m.t) {
      case "rank":
        queueAsks(m.asks);
        return;
      case "batch":
        if (m.xid !== null && loadPosition !== undefined && committedBefore(loadPosition, BigInt(m.xid))) return;
        if (m.xid !== null) foreignXids.add(BigInt(m.xid));
        batches.add(
          shard.applyPackedSteps(m.payload, m.notStored, (org) => ownsOrg(org) && loaded(org)),
          () => {
            const records = shard.skips.flush({ shard: data.shard, in: "committed batch" });
            if (records > 0) send({ t: "skipped", records });
          },
        );
        return;
      case "stats":
        send({ t: "stats", id: m.id, stats: shard.stats(m.org) });
        return;
      case "explain":
        explain(m.id, m.ask);
        return;
      case "model":
        if (ownsOrg(m.org)) shared?.notice(m.org, m.version);
        return;
      case "erase":
        if (!ownsOrg(m.org) || !loaded(m.org)) return;
        // Behind the batches already queued: what they carry of these users is erased with the rest.
        batches.add([].values(), () => shard.erase(m.org, m.userIds));
        return;
      case "rules":
        // At once, even while loading: a rule names items by id, so it needs nothing of the index.
        if (ownsOrg(m.org)) ruleBook.set(m.org, m.version, m.rules);
        return;
      case "snapshot":
        // While loading, the index is not yet at any one position: the next round takes it.
        if (loadResult === undefined || m.t !== "snapshot") return;
        snapshots.round(m.position, m.takenAtS, m.orgs, foreignXids.after(parseXidSnapshot(m.position)), new Set(m.fresh));
        return;
      case "catchUp":
        // A job of no steps, queued behind the batches: it is done when they are.
        batches.add([].values(), () => send({ t: "caughtUp", id: m.id }));
        return;
    }
  } catch (err) {
    log.error("recommender thread could not handle a message", { shard: data.shard, message: m.t, error: (err as Error).stack });
  }
}

/** How often the shard's totals go to the front thread (the metrics' index sizes)… */
const SIZES_EVERY_MS = 10_000;
/** …and, while it loads, the organisations it has read (a shard of many small ones reads several in a few ms). */
const LOADED_EVERY_MS = 50;

function sendSizes(): void {
  send({ t: "sizes", sizes: shard.sizes() });
}

const batches = new BatchQueue((queue) => scheduler.wake(queue));
/** Set once the load is done: which lineage each organisation's index descends from. */
let loadResult: LoadResult | undefined;
const snapshots = new SnapshotRounds({
  databaseUrl: data.databaseUrl,
  shard: data.shard,
  minEvents: data.snapshotMinEvents,
  orgs: () => shard.all(),
  lineageAtS: (org) => loadResult!.restored.get(org)?.lineageAtS ?? loadResult!.loadAtS,
  queue: (steps, done) => batches.add(steps, done),
  report: (m) => send(m),
});
const progress = new LoadProgress();
const inbox = new Inbox(handle, progress);
port.on("message", (raw: Uint8Array | BatchWire) => {
  let m: ToShard;
  try {
    m = readToShard(raw);
  } catch (err) {
    log.error("recommender thread could not read a message", { shard: data.shard, error: (err as Error).stack });
    return;
  }
  inbox.take(m);
});

/** Tells the front thread, at most every LOADED_EVERY_MS, which organisations it may now send requests for. */
function loadHooks(): LoadHooks {
  let unsent: number[] = [];
  let sentAt = 0;
  return {
    positionTaken: () => inbox.positionTaken(),
    position: (text) => (loadPosition = parseXidSnapshot(text)),
    catalogLoaded: (order) => {
      progress.catalogLoaded(order);
      send({ t: "loading", pending: order });
    },
    orgsLoaded: (orgs) => {
      progress.orgsLoaded(orgs.length);
      unsent.push(...orgs);
      if (performance.now() - sentAt < LOADED_EVERY_MS) return;
      send({ t: "loaded", orgs: unsent });
      unsent = [];
      sentAt = performance.now();
    },
  };
}

async function start(): Promise<void> {
  // Its own Skips: batches applied meanwhile (to organisations already read) flush the shard's.
  const loadSkips = new Skips();
  const outcomes: Record<SnapshotOutcome, number> = { restored: 0, missing: 0, unreadable: 0 };
  const loaded = await loadShard(data.databaseUrl, data.shard, data.shards, (org) => shard.org(org), loadSkips, loadHooks(), data.restart, {
    discard: (org) => shard.discard(org),
    outcome: (org, outcome, detail) => {
      outcomes[outcome]++;
      if (outcome === "unreadable")
        log.warn("index snapshot unreadable; the organisation is loaded in full", { shard: data.shard, org, error: detail });
    },
  });
  // A restored organisation's rows are as its snapshot held them, with room to grow: trimming would copy them all again.
  for (const index of shard.all()) if (!loaded.restored.has(index.org)) index.trim();
  // An organisation with events enough to snapshot and no snapshot was loaded in full: counted, so a restart that costs the history shows.
  const fullLoads = [...shard.all()].filter((i) => !loaded.restored.has(i.org) && i.applied >= data.snapshotMinEvents).map((i) => i.org);
  outcomes.missing = fullLoads.length;
  if (fullLoads.length > 0) log.info("no usable index snapshot; loaded in full", { shard: data.shard, orgs: fullLoads.slice(0, 20) });
  loadResult = loaded;
  for (const [org, s] of loaded.restored) snapshots.restored(org, { id: s.id, applied: shard.has(org) ? s.events : 0 });
  send({ t: "snapshotsLoaded", outcomes });
  const skipped = loadSkips.flush({ shard: data.shard, in: "load from PostgreSQL" });
  const training = new TrainingScheduler(() => shard.all(), {
    params: data.als,
    retrainIntervalMs: data.retrainIntervalMs,
    entriesMax: data.trainingEntriesMax,
    shared: shared || undefined,
    trained: (org, ms, budgeted) => {
      send({ t: "trained", org, ms, budgeted });
      sendSizes(); // a model changes the index's size most
    },
  });
  inbox.open();
  send({ t: "ready", orgs: loaded.orgs, events: loaded.events, ms: Math.round(loaded.ms), skipped });
  sendSizes();
  setInterval(sendSizes, SIZES_EVERY_MS).unref();
  // A model another process stored is loaded rather than trained again (CLUSTER=1).
  const stored = shared ? await shared.storedVersions() : new Map<number, number>();
  if (shared) {
    shared.start(training);
    for (const [org, version] of stored) shared.notice(org, version);
    await shared.catchUp();
  }
  // First models are trained after serving starts: until then user strategies fall back to popular.
  for (const index of [...shard.all()]) {
    if (index.eventsSinceTraining === 0 || index.model) continue;
    await training.trainNow(index).catch((err: Error) => log.error("model training failed", { shard: data.shard, org: index.org, error: err.stack }));
  }
}

start().catch((err) => {
  log.error("recommender thread failed to start", { shard: data.shard, error: (err as Error).stack });
  process.exit(1);
});
