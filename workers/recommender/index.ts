import { parentPort, workerData } from "node:worker_threads";
import { packMessage, unpackMessage, type FromShard, type ToShard } from "../../src/recommend/protocol.js";
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
const shard = new Shard();
const port = parentPort!;

function send(m: FromShard): void {
  const packed = packMessage(m);
  port.postMessage(packed, [packed.buffer as ArrayBuffer]);
}

function handle(m: ToShard): void {
  switch (m.t) {
    case "rank":
      try {
        send({ t: "ranked", id: m.id, result: shard.rank(m.req) });
      } catch (err) {
        log.error("recommend failed", { shard: data.shard, error: (err as Error).stack });
        send({ t: "failed", id: m.id, message: (err as Error).message });
      }
      return;
    case "batch":
      shard.apply(m.items, m.users, m.events);
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
