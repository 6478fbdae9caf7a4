import { Worker } from "node:worker_threads";
import { log } from "../../src/wire/log.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { AlsParams } from "../../src/wire/als.js";
import type { Model } from "../model/model.js";
import type { TrainerAnswer, TrainJob, TranslateJob } from "../training/trainingThread.js";
import { prepareSearch } from "../vectors/search.js";
import { trainingSetInSlices } from "./trainingRows.js";

const TRAINER_FILE = new URL("../training/trainingThread.js", import.meta.url);
const CHECK_MS = 500;
/** A model is first trained this soon after an organisation's first events… */
const FIRST_TRAINING_DELAY_MS = 1_000;
/** …and again once new events reach this share of what it was trained on (and at least RETRAIN_MIN_EVENTS). */
const RETRAIN_GROWTH = 0.2;
const RETRAIN_MIN_EVENTS = 1_000;
const RETRAIN_GAP_MS = 10_000;
/**
 * …and no sooner than this many times the last training's length after it started: a training costs more as
 * data grows, and under a steady stream of events the growth rule alone keeps training back to back, on CPU
 * that ingestion and serving need. Users stay fresh
 * meanwhile by fold-in; the scheduled retrain (RECOMMEND_RETRAIN_S) is not held back, nor is the retrain after
 * a bulk load (RETRAIN_AFTER_BULK_GROWTH).
 */
const RETRAIN_GAP_PER_TRAINING = 10;
/**
 * A retrain for new interactions waits while this shard takes at least this many events a second: training
 * takes cores that a bulk load needs, and the load's model is better trained once on all of it…
 */
const BUSY_EVENTS_PER_S = 20_000;
/** …but no longer than this past the moment it could have started, so a steady heavy stream still retrains. */
const RETRAIN_DEFER_MAX_MS = 60_000;
/** The rate is smoothed over about this long, so that a loader's pause of a second or two between files is not a lull. */
const RATE_SMOOTHING_S = 5;
/**
 * A model trained while a bulk load streamed in is replaced as soon as the load lulls once new interactions reach
 * this share of what it was trained on, however long its training took: otherwise a large bulk load leaves the
 * model of its first few percent in service for minutes after the load ends. A steady stream never qualifies (one
 * never busy is no load, one never lull has no end), and the data must have doubled each time, so even a load
 * with lulls between its files retrains only a few times.
 */
const RETRAIN_AFTER_BULK_GROWTH = 1;
/**
 * The same holds for a load at any rate once the organisation has taken no event for this long: a load through
 * the API below a bulk load's rate never counts as busy, and would leave the model of its first part in service
 * long after its last event. Five seconds, as the rate's smoothing: a loader's pause of a second or two between
 * files is not the end of its load.
 */
const QUIET_MS = 5_000;

/** The ingest rate smoothed exponentially: `previous`, moved towards `events` taken over `seconds`. */
export function smoothedRate(previous: number, events: number, seconds: number): number {
  if (seconds <= 0) return previous;
  const weight = 1 - Math.exp(-seconds / RATE_SMOOTHING_S);
  return previous + weight * (events / seconds - previous);
}

export interface TrainingSettings {
  params: AlsParams;
  /** Retrain at least this often while new events arrive. */
  retrainIntervalMs: number;
  /** The most entries a training set holds (TRAINING_ENTRIES_MAX). */
  entriesMax?: number;
  /** Hears of each model put in place, with how long its training took. */
  trained?: (org: number, ms: number, budgeted: boolean) => void;
  /** CLUSTER=1: one process trains each organisation and the others load its model (sharedTraining.ts). */
  shared?: TrainingShare;
}

/** What the scheduler asks of the processes it shares training with. */
export interface TrainingShare {
  /** Whether this process trains the organisation now: it holds its lease, or has just taken it. */
  claim(org: number): Promise<boolean>;
  /** Stores a model this process trained (its bytes: model/modelBytes.ts) and announces it. */
  store(org: number, bytes: Uint8Array, interactions: number): Promise<void>;
}

export interface OrgTraining {
  lastStart: number;
  /** How long the last training took, from the start of its training set to the model in place. */
  lastMs: number;
  trainedOn: number;
  firstEventAt: number;
  /** Whether its events came at a bulk load's rate (BUSY_EVENTS_PER_S on the shard) since the last training started. */
  busySinceStart: boolean;
  /** When the scheduler last saw the organisation take events (0: never). */
  lastEventAt: number;
}

/**
 * Whether an organisation with new events (and `trained`: a model already) should be trained at `now`, while
 * its shard takes `ingestPerS` events a second.
 */
export function isTrainingDue(
  s: OrgTraining,
  trained: boolean,
  newEvents: number,
  now: number,
  retrainIntervalMs: number,
  ingestPerS: number,
): boolean {
  if (!trained) return now - s.firstEventAt >= FIRST_TRAINING_DELAY_MS && now - s.lastStart >= FIRST_TRAINING_DELAY_MS;
  const sinceStart = now - s.lastStart;
  if (sinceStart >= retrainIntervalMs) return true;
  if (sinceStart < RETRAIN_GAP_MS || newEvents < Math.max(RETRAIN_MIN_EVENTS, RETRAIN_GROWTH * s.trainedOn)) return false;
  const busy = ingestPerS >= BUSY_EVENTS_PER_S;
  if (outgrownByEndedBulk(s, newEvents, busy) || outgrownByQuietOrg(s, newEvents, now)) return true;
  const gap = Math.max(RETRAIN_GAP_MS, RETRAIN_GAP_PER_TRAINING * s.lastMs);
  return sinceStart >= gap && (!busy || sinceStart >= gap + RETRAIN_DEFER_MAX_MS);
}

/** Whether a bulk load that came after the model's training started has ended, leaving the model a small part of the data. */
function outgrownByEndedBulk(s: OrgTraining, newEvents: number, busy: boolean): boolean {
  return s.busySinceStart && !busy && newEvents >= RETRAIN_AFTER_BULK_GROWTH * s.trainedOn;
}

/** Whether the organisation's events have stopped, leaving the model at most half of the data. */
function outgrownByQuietOrg(s: OrgTraining, newEvents: number, now: number): boolean {
  return s.lastEventAt > 0 && now - s.lastEventAt >= QUIET_MS && newEvents >= RETRAIN_AFTER_BULK_GROWTH * s.trainedOn;
}

/**
 * Decides when each organisation's model is (re)trained and runs the training in a separate thread, one
 * organisation at a time, so serving never pauses; the finished model is swapped into the index whole.
 */
export class TrainingScheduler {
  private readonly trainers = new Set<Worker>();
  private busy = false;
  private readonly state = new Map<OrgIndex, OrgTraining>();
  private readonly timer: NodeJS.Timeout;
  /** Each organisation's eventsSinceTraining at the last rate reading, and when that was. */
  private readonly counted = new WeakMap<OrgIndex, number>();
  private countedAt = Date.now();
  private rate = 0;

  constructor(
    private readonly orgs: () => Iterable<OrgIndex>,
    private readonly settings: TrainingSettings,
  ) {
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  /** Trains one organisation now (at start, for every organisation with events). */
  trainNow(index: OrgIndex): Promise<void> {
    return this.train(index);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.trainers].map((t) => t.terminate()));
  }

  /**
   * A model another process trained, translated, put in place as if trained here: the events this process holds
   * count as trained on, so that it does not turn round and train the organisation itself.
   */
  async loaded(index: OrgIndex, model: Model, interactions: number): Promise<void> {
    await prepareSearch(model);
    index.model = model;
    const s = this.stateOf(index);
    s.lastStart = Date.now();
    s.lastMs = 0;
    s.trainedOn = interactions;
    s.busySinceStart = false;
    if (s.firstEventAt === 0) s.firstEventAt = s.lastStart;
    index.eventsSinceTraining = 0;
    this.counted.set(index, 0);
  }

  /** A stored model's translation, done in a thread of its own as a training is (training/translateModel.ts). */
  async translate(job: TranslateJob): Promise<Model> {
    return (await this.run(job)).model;
  }

  private check(): void {
    const now = Date.now();
    // Read during a training too: a load that ends while the training runs is then known to have ended when it
    // finishes, and not taken for still going by a reading averaged over the whole training.
    const ingestPerS = this.ingestRate(now);
    if (this.busy) return;
    for (const index of this.orgs()) {
      if (index.eventsSinceTraining === 0) continue;
      const s = this.stateOf(index);
      if (s.firstEventAt === 0) s.firstEventAt = now;
      if (isTrainingDue(s, index.model !== undefined, index.eventsSinceTraining, now, this.settings.retrainIntervalMs, ingestPerS)) {
        this.train(index).catch((err) => log.error("model training failed", { org: index.org, error: (err as Error).stack }));
        return;
      }
    }
  }

  /**
   * Events a second this shard's organisations take, smoothed over the last few seconds; the organisations that
   * took events while that rate was a bulk load's are marked as having had one.
   */
  private ingestRate(now: number): number {
    let events = 0;
    const took: OrgIndex[] = [];
    for (const index of this.orgs()) {
      const since = index.eventsSinceTraining - (this.counted.get(index) ?? 0);
      this.counted.set(index, index.eventsSinceTraining);
      events += since;
      if (since > 0) {
        took.push(index);
        this.stateOf(index).lastEventAt = now;
      }
    }
    this.rate = smoothedRate(this.rate, events, (now - this.countedAt) / 1000);
    this.countedAt = now;
    if (this.rate >= BUSY_EVENTS_PER_S) for (const index of took) this.stateOf(index).busySinceStart = true;
    return this.rate;
  }

  private stateOf(index: OrgIndex): OrgTraining {
    let s = this.state.get(index);
    if (!s) this.state.set(index, (s = { lastStart: 0, lastMs: 0, trainedOn: 0, firstEventAt: 0, busySinceStart: false, lastEventAt: 0 }));
    return s;
  }

  private async train(index: OrgIndex): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const s = this.stateOf(index);
    s.lastStart = Date.now();
    // A training that starts during a load (held back as long as allowed) is as partial as one the load overtakes.
    s.busySinceStart = this.rate >= BUSY_EVENTS_PER_S;
    const { shared } = this.settings;
    try {
      // Another process holds the organisation: its model comes by notice (sharedTraining.ts). lastStart is set,
      // so the claim is asked again only when training is due again.
      if (shared && !(await shared.claim(index.org))) {
        log.debug("recommender model not trained: another process trains this organisation", { org: index.org });
        return;
      }
      // Built a slice at a time between rank requests; events applied meanwhile count as new ones (some are in it).
      const counted = index.eventsSinceTraining;
      const setStarted = performance.now();
      const { matrix, userVersions, recency, rowMax } = await trainingSetInSlices(index, this.settings.entriesMax);
      const setMs = performance.now() - setStarted;
      s.trainedOn = matrix.indptr[matrix.rows]!;
      index.eventsSinceTraining -= counted;
      this.counted.set(index, index.eventsSinceTraining);
      if (s.trainedOn === 0) return;
      const names = shared ? index.catalog.ids.names.slice(0, matrix.cols) : [];
      const share = shared ? { names, interactions: s.trainedOn } : null;
      const { model, stored } = await this.run({ kind: "train", matrix, userVersions, recency, rowMax, params: this.settings.params, share });
      // A turn of the event loop before the swap (prepareSearch says why).
      const prepareStarted = performance.now();
      await prepareSearch(model);
      const prepareMs = performance.now() - prepareStarted;
      index.model = model;
      const budgeted = rowMax < index.people.limits.itemsMax;
      this.settings.trained?.(index.org, model.trainingMs, budgeted);
      log.info("recommender model trained", {
        org: index.org,
        users: model.userCount,
        items: model.itemCount,
        interactions: s.trainedOn,
        // Held to TRAINING_ENTRIES_MAX: each user's row kept at most their latest rowMax items.
        ...(budgeted && { rowMax }),
        ms: Math.round(model.trainingMs),
        setMs: Math.round(setMs),
        prepareMs: Math.round(prepareMs * 10) / 10,
      });
      if (shared && stored) await shared.store(index.org, stored, s.trainedOn);
    } finally {
      s.lastMs = Date.now() - s.lastStart;
      this.busy = false;
    }
  }

  /** Each training runs in a thread of its own that ends with it, so the memory training used is given back. */
  private run(job: TrainJob | TranslateJob): Promise<TrainerAnswer> {
    const trainer = this.startTrainer();
    this.trainers.add(trainer);
    const ended = () => {
      this.trainers.delete(trainer);
      void trainer.terminate();
    };
    return new Promise((resolve, reject) => {
      trainer.once("message", (m: TrainerAnswer) => {
        ended();
        resolve(m);
      });
      trainer.once("error", (err: Error) => {
        ended();
        reject(err);
      });
      // After an answer this settles nothing; without one (the thread died) the training fails instead of hanging.
      trainer.once("exit", (code) => reject(new Error(`the training thread exited (code ${code}) before answering`)));
      if (job.kind === "translate") return trainer.postMessage(job, [job.bytes.buffer, job.local.buffer] as ArrayBuffer[]);
      const m = job.matrix;
      trainer.postMessage(job, [m.indptr.buffer, m.indices.buffer, m.values.buffer, job.userVersions.buffer, job.recency.buffer] as ArrayBuffer[]);
    });
  }

  private startTrainer(): Worker {
    const w = new Worker(TRAINER_FILE);
    w.unref();
    return w;
  }
}
