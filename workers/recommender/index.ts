import { parentPort, workerData } from "node:worker_threads";
import { AnswerBatch } from "../../src/recommend/answerBatch.js";
import { askFromWire, packMessage, unpackMessage, type AskWire, type FromShard, type ToShard } from "../../src/recommend/protocol.js";
import { log } from "../../src/log.js";
import type { AlsParams } from "../training/als.js";
import { loadShard } from "./loader.js";
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
    case "batch":
      shard.applyPacked(m.payload, m.notStored, ownsOrg);
      return;
    case "stats":
      send({ t: "stats", id: m.id, stats: shard.stats(m.org) });
      return;
  }
}

async function start(): Promise<void> {
  const loaded = await loadShard(data.databaseUrl, data.shard, data.shards, (org) => shard.org(org));
  for (const index of shard.all()) index.trim();
  const training = new TrainingScheduler(() => shard.all(), { params: data.als, retrainIntervalMs: data.retrainIntervalMs });
  port.on("message", (raw: Uint8Array) => handle(unpackMessage<ToShard>(raw)));
  send({ t: "ready", orgs: loaded.orgs, events: loaded.events, ms: Math.round(loaded.ms) });
  // First models are trained after serving starts: until then user strategies fall back to popular.
  for (const index of [...shard.all()]) if (index.eventsSinceTraining > 0) await training.trainNow(index);
}

start().catch((err) => {
  log.error("recommender thread failed to start", { shard: data.shard, error: (err as Error).stack });
  process.exit(1);
});
