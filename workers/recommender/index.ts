import { parentPort, workerData } from "node:worker_threads";
import { AnswerBatch } from "../../src/recommend/answerBatch.js";
import { askFromWire, packMessage, unpackMessage, type AskWire, type FromShard, type ToShard } from "../../src/recommend/protocol.js";
import { log } from "../../src/log.js";
import type { AlsParams } from "../training/als.js";
import { loadShard } from "./loader.js";
import { Inbox } from "./inbox.js";
import { Shard } from "./shard.js";
import { TrainingScheduler } from "./trainingScheduler.js";

export interface RecommenderData {
  databaseUrl: string;
  shard: number;
  shards: number;
  als: AlsParams;
  retrainIntervalMs: number;
}

const data = workerData as RecommenderData;
/** Organisations live on shard `seq % shards`; a batch may hold other shards' records too. */
const ownsOrg = (org: number): boolean => org % data.shards === data.shard;
const shard = new Shard();
const port = parentPort!;

function send(m: FromShard): void {
  const packed = packMessage(m);
  port.postMessage(packed, [packed.buffer as ArrayBuffer]);
}

/** Answers that waited this long for the rest of their batch leave at once. */
const ANSWER_HOLD_MS = 1;

const answers = new AnswerBatch();

function sendAnswers(): void {
  const batch = answers.take();
  port.postMessage(batch, [batch]);
}

/** Ranks a batch of requests, answering in as few messages as possible without holding an answer long. */
function rankAll(asks: AskWire[]): void {
  let since = performance.now();
  for (const wire of asks) {
    const { id, req } = askFromWire(wire);
    try {
      answers.add(id, shard.rank(req));
    } catch (err) {
      log.error("recommend failed", { shard: data.shard, error: (err as Error).stack });
      answers.fail(id);
    }
    if (performance.now() - since >= ANSWER_HOLD_MS) {
      sendAnswers();
      since = performance.now();
    }
  }
  if (answers.size > 0) sendAnswers();
}

function handle(m: ToShard): void {
  switch (m.t) {
    case "rank":
      rankAll(m.asks);
      return;
    case "batch": {
      shard.applyPacked(m.payload, m.notStored, ownsOrg);
      const records = shard.skips.flush({ shard: data.shard, in: "committed batch" });
      if (records > 0) send({ t: "skipped", records });
      return;
    }
    case "stats":
      send({ t: "stats", id: m.id, stats: shard.stats(m.org) });
      return;
  }
}

/** A message that fails is logged and dropped: the thread serves every other organisation of its shard. */
function receive(raw: Uint8Array): void {
  try {
    handle(unpackMessage<ToShard>(raw));
  } catch (err) {
    log.error("recommender thread could not handle a message", { shard: data.shard, error: (err as Error).stack });
  }
}

/** How often the shard's totals go to the front thread (the metrics' index sizes). */
const SIZES_EVERY_MS = 10_000;

function sendSizes(): void {
  send({ t: "sizes", sizes: shard.sizes() });
}

/**
 * Messages are read from the first moment. Batches that arrive before the load takes its snapshot were committed
 * before it (a batch is sent once committed), so the load has them: applying them too would count them twice.
 * Those that arrive during the load wait for it.
 */
const inbox = new Inbox(receive);
port.on("message", (raw: Uint8Array) => inbox.take(raw));

async function start(): Promise<void> {
  const loaded = await loadShard(data.databaseUrl, data.shard, data.shards, (org) => shard.org(org), shard.skips, () => inbox.snapshotTaken());
  for (const index of shard.all()) index.trim();
  const skipped = shard.skips.flush({ shard: data.shard, in: "load from PostgreSQL" });
  const training = new TrainingScheduler(() => shard.all(), {
    params: data.als, retrainIntervalMs: data.retrainIntervalMs, trained: (org, ms) => send({ t: "trained", org, ms }),
  });
  send({ t: "ready", orgs: loaded.orgs, events: loaded.events, ms: Math.round(loaded.ms), skipped });
  inbox.open();
  sendSizes();
  setInterval(sendSizes, SIZES_EVERY_MS).unref();
  // First models are trained after serving starts: until then user strategies fall back to popular.
  for (const index of [...shard.all()]) {
    if (index.eventsSinceTraining === 0) continue;
    await training.trainNow(index).catch((err: Error) => log.error("model training failed", { shard: data.shard, org: index.org, error: err.stack }));
  }
}

start().catch((err) => {
  log.error("recommender thread failed to start", { shard: data.shard, error: (err as Error).stack });
  process.exit(1);
});
