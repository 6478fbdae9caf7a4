import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLogLevel } from "../../../src/wire/log.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { isTrainingDue, smoothedRate, TrainingScheduler, type OrgTraining } from "../../../workers/recommender/trainingScheduler.js";
import type { AlsParams } from "../../../src/wire/als.js";
import type { Model } from "../../../workers/model/model.js";
import type { TrainerAnswer, TrainJob } from "../../../workers/training/trainingThread.js";

const S = 1000;
const HOUR = 3600 * S;
/** An organisation last trained at t = 0 on 100,000 interactions, the training having taken `lastMs`. */
const trainedAtZero = (lastMs: number): OrgTraining => ({
  lastStart: 0,
  lastMs,
  trainedOn: 100_000,
  firstEventAt: 0,
  busySinceStart: false,
  lastEventAt: 0,
});
/** No model yet, first events at 5 s. */
const untrained = (): OrgTraining => ({ lastStart: 0, lastMs: 0, trainedOn: 0, firstEventAt: 5 * S, busySinceStart: false, lastEventAt: 0 });
/**
 * The benchmark organisation's load as it went: its first model, started at t = 0 as the load began, took a
 * minute beside it and saw 217,000 of the 3,800,000 interactions the load ends with, a minute in.
 */
const trainedEarlyInBulk = (): OrgTraining => ({
  lastStart: 0,
  lastMs: 60 * S,
  trainedOn: 217_000,
  firstEventAt: 0,
  busySinceStart: true,
  lastEventAt: 0,
});
const LOADED = 3_800_000 - 217_000;

describe("isTrainingDue", () => {
  it("trains a first model a second after an organisation's first events", () => {
    const s = untrained();
    expect([isTrainingDue(s, false, 10, 5.5 * S, HOUR, 0), isTrainingDue(s, false, 10, 6 * S, HOUR, 0)]).toEqual([false, true]);
  });

  it("retrains after 20% new interactions, at most every 10 s", () => {
    const s = trainedAtZero(100);
    expect(isTrainingDue(s, true, 19_999, 60 * S, HOUR, 0)).toBe(false);
    expect(isTrainingDue(s, true, 20_000, 9 * S, HOUR, 0)).toBe(false);
    expect(isTrainingDue(s, true, 20_000, 10 * S, HOUR, 0)).toBe(true);
  });

  it("waits ten times the last training's length before retraining for new interactions", () => {
    const s = trainedAtZero(6 * S);
    expect(isTrainingDue(s, true, 50_000, 59 * S, HOUR, 0)).toBe(false);
    expect(isTrainingDue(s, true, 50_000, 60 * S, HOUR, 0)).toBe(true);
  });

  it("holds a retrain for new interactions back while the shard takes 20,000 events a second or more", () => {
    const s = trainedAtZero(100);
    expect(isTrainingDue(s, true, 20_000, 10 * S, HOUR, 19_999)).toBe(true);
    expect(isTrainingDue(s, true, 20_000, 10 * S, HOUR, 20_000)).toBe(false);
    expect(isTrainingDue(s, true, 20_000, 69 * S, HOUR, 150_000)).toBe(false);
  });

  it("retrains a minute after it could have started even while the stream stays heavy", () => {
    const s = trainedAtZero(6 * S);
    expect(isTrainingDue(s, true, 50_000, 119 * S, HOUR, 150_000)).toBe(false);
    expect(isTrainingDue(s, true, 50_000, 120 * S, HOUR, 150_000)).toBe(true);
  });

  it("does not hold back a first model or the scheduled retrain for a heavy stream", () => {
    const first = untrained();
    expect(isTrainingDue(first, false, 10, 6 * S, HOUR, 150_000)).toBe(true);
    expect(isTrainingDue(trainedAtZero(100), true, 1, 10 * 60 * S, 10 * 60 * S, 150_000)).toBe(true);
  });

  it("keeps the scheduled retrain however long the last training took", () => {
    const s = trainedAtZero(600 * S);
    expect(isTrainingDue(s, true, 1, 10 * 60 * S - 1, 10 * 60 * S, 0)).toBe(false);
    expect(isTrainingDue(s, true, 1, 10 * 60 * S, 10 * 60 * S, 0)).toBe(true);
  });

  it("retrains as soon as a bulk load lulls when the model in service saw only its first 6%, however long that training took", () => {
    const s = trainedEarlyInBulk();
    expect(isTrainingDue(s, true, LOADED, 60 * S, HOUR, 150_000)).toBe(false);
    expect(isTrainingDue(s, true, LOADED, 70 * S, HOUR, 19_999)).toBe(true);
  });

  it("brings a retrain forward after a bulk load only once the data has at least doubled since the model", () => {
    const s = trainedEarlyInBulk();
    expect(isTrainingDue(s, true, 216_999, 70 * S, HOUR, 0)).toBe(false);
    expect(isTrainingDue(s, true, 217_000, 70 * S, HOUR, 0)).toBe(true);
  });

  it("retrains no sooner than 10 s after the last training started, even after a bulk load", () => {
    const s = trainedEarlyInBulk();
    expect(isTrainingDue(s, true, LOADED, 10 * S - 1, HOUR, 0)).toBe(false);
    expect(isTrainingDue(s, true, LOADED, 10 * S, HOUR, 0)).toBe(true);
  });

  it("keeps ten times the last training's length between retrains under a stream below a bulk load's rate, however much the data grows", () => {
    // Its last events came at 600 s: the stream goes on.
    const s = { ...trainedEarlyInBulk(), busySinceStart: false, lastEventAt: 600 * S };
    expect(isTrainingDue(s, true, 10 * LOADED, 600 * S - 1, HOUR, 19_999)).toBe(false);
    expect(isTrainingDue(s, true, 10 * LOADED, 600 * S, HOUR, 19_999)).toBe(true);
  });

  it("keeps ten times the last training's length, and a minute more, under a heavy stream that never lulls, however much the data grows", () => {
    const s = { ...trainedEarlyInBulk(), lastEventAt: 660 * S };
    expect(isTrainingDue(s, true, 10 * LOADED, 660 * S - 1, HOUR, 20_000)).toBe(false);
    expect(isTrainingDue(s, true, 10 * LOADED, 660 * S, HOUR, 20_000)).toBe(true);
  });
});

describe("isTrainingDue once an organisation's events stop", () => {
  /** Gowalla loaded through the API at 8,500 events a second: its first model saw 80,000 pairs and took 13 s; the last event came at 100 s. */
  const ingestedSlowly = (): OrgTraining => ({
    lastStart: 0,
    lastMs: 13 * S,
    trainedOn: 80_000,
    firstEventAt: 0,
    busySinceStart: false,
    lastEventAt: 100 * S,
  });

  it("retrains 5 s after the organisation's last event once the data has doubled since the model, however long that training took", () => {
    expect(isTrainingDue(ingestedSlowly(), true, 730_000, 105 * S - 1, HOUR, 0)).toBe(false);
    expect(isTrainingDue(ingestedSlowly(), true, 730_000, 105 * S, HOUR, 0)).toBe(true);
  });

  it("keeps ten times the last training's length when the data has grown by less than the model saw", () => {
    expect(isTrainingDue(ingestedSlowly(), true, 79_999, 129 * S, HOUR, 0)).toBe(false);
    expect(isTrainingDue(ingestedSlowly(), true, 79_999, 130 * S, HOUR, 0)).toBe(true);
  });
});

describe("smoothedRate", () => {
  /** The rate after `seconds` of half-second readings of `perS` events a second, from `start`. */
  const after = (start: number, perS: number, seconds: number) => {
    let rate = start;
    for (let t = 0; t < seconds; t += 0.5) rate = smoothedRate(rate, perS / 2, 0.5);
    return rate;
  };

  it("still counts a 150,000 events/s load as heavy two seconds into a pause", () => {
    expect(after(after(0, 150_000, 30), 0, 2)).toBeGreaterThan(20_000);
  });

  it("reads a lull once the pause lasts about ten seconds", () => {
    expect(after(after(0, 150_000, 30), 0, 9)).toBeGreaterThan(20_000);
    expect(after(after(0, 150_000, 30), 0, 11)).toBeLessThan(20_000);
  });

  it("comes within 1% of a steady rate in 25 seconds, and never past it", () => {
    expect(after(0, 30_000, 25)).toBeGreaterThan(29_700);
    expect(after(0, 30_000, 25)).toBeLessThanOrEqual(30_000);
  });

  it("keeps the rate when no time has passed", () => {
    expect(smoothedRate(12_345, 100, 0)).toBe(12_345);
  });
});

describe("TrainingScheduler", () => {
  const TICK_MS = 500;
  let index: OrgIndex;
  let scheduler: TrainingScheduler;
  /** How long each training takes from now on (0: it ends at once). */
  let trainingS: number;

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    setLogLevel("warn"); // a line per model would bury the test report
    // The training thread is replaced by one that answers after `trainingS` of the fake clock: only when a
    // training starts and ends matters to the schedule.
    trainingS = 0;
    vi.spyOn(TrainingScheduler.prototype as unknown as { run(job: TrainJob): Promise<TrainerAnswer> }, "run").mockImplementation(() => {
      // No item codes: the search has nothing to prepare before the swap.
      const model = {
        userCount: 1,
        itemCount: 1,
        trainingMs: trainingS * S,
        params: { factors: 16 } as AlsParams,
        itemCodes: new Int8Array(0),
      } as Model;
      const answer = { model, stored: null };
      return trainingS === 0 ? Promise.resolve(answer) : new Promise((resolve) => setTimeout(() => resolve(answer), trainingS * S));
    });
    index = new OrgIndex(1);
    const nowS = Date.now() / 1000;
    index.applyEvent({ userId: "u", itemId: "i", family: "engagement", name: "view", weight: 1, previousUserId: null, atS: nowS }, nowS);
    scheduler = new TrainingScheduler(() => [index], { params: {} as AlsParams, retrainIntervalMs: 3600 * S });
    await scheduler.trainNow(index);
  });

  afterEach(async () => {
    await scheduler.stop();
    vi.restoreAllMocks();
    vi.useRealTimers();
    setLogLevel("info");
  });

  /** Seconds until a training starts while `perS` events a second arrive, or undefined within `seconds`. */
  async function secondsUntilTrained(perS: number, seconds: number): Promise<number | undefined> {
    for (let t = TICK_MS; t <= seconds * S; t += TICK_MS) {
      const before = index.eventsSinceTraining + (perS * TICK_MS) / S;
      index.eventsSinceTraining = before;
      await vi.advanceTimersByTimeAsync(TICK_MS);
      if (index.eventsSinceTraining < before) return t / S;
    }
    return undefined;
  }

  it("retrains 10 s after the last training under a light stream", async () => {
    expect(await secondsUntilTrained(2_000, 30)).toBe(10);
  });

  it("holds the retrain back during a bulk load and trains once the load has stopped for a few seconds", async () => {
    expect(await secondsUntilTrained(150_000, 40)).toBeUndefined();
    const quietFor = await secondsUntilTrained(0, 30);
    expect(quietFor).toBeGreaterThanOrEqual(5);
    expect(quietFor).toBeLessThan(15);
  });

  it("retrains a minute late under a load that does not stop", async () => {
    expect(await secondsUntilTrained(150_000, 90)).toBe(70);
  });

  it("retrains within 15 s of a bulk load's end though the model in service, trained as it began, took a minute", async () => {
    trainingS = 60;
    void scheduler.trainNow(index);
    expect(await secondsUntilTrained(150_000, 90)).toBeUndefined();
    const quietFor = await secondsUntilTrained(0, 30);
    expect(quietFor).toBeGreaterThanOrEqual(5);
    expect(quietFor).toBeLessThan(15);
  });

  it("retrains as soon as a training that outlasted the bulk load ends", async () => {
    trainingS = 60;
    void scheduler.trainNow(index);
    expect(await secondsUntilTrained(150_000, 40)).toBeUndefined();
    const quietFor = await secondsUntilTrained(0, 60);
    expect(quietFor).toBeGreaterThanOrEqual(20);
    expect(quietFor).toBeLessThanOrEqual(21);
  });

  it("retrains ten times a training's length apart, not back to back, under a steady light stream", async () => {
    trainingS = 6;
    expect(await secondsUntilTrained(2_000, 30)).toBe(10);
    expect(await secondsUntilTrained(2_000, 120)).toBe(60);
    expect(await secondsUntilTrained(2_000, 120)).toBe(60);
  });

  it("retrains ten times a training's length and a minute apart, not back to back, under a steady heavy stream", async () => {
    trainingS = 6;
    expect(await secondsUntilTrained(150_000, 90)).toBe(70);
    expect(await secondsUntilTrained(150_000, 180)).toBe(120);
    expect(await secondsUntilTrained(150_000, 180)).toBe(120);
  });
});

describe("TrainingScheduler sharing the training with other processes (CLUSTER=1)", () => {
  const TICK_MS = 500;
  let index: OrgIndex;
  let scheduler: TrainingScheduler;
  /** Whether this process holds the organisation's lease; the claims asked and the models stored. */
  let holds: boolean;
  let claims: number;
  let stored: { org: number; bytes: number; interactions: number }[];
  let jobs: TrainJob[];
  const model = () => ({ userCount: 1, itemCount: 1, trainingMs: 0, params: { factors: 16 } as AlsParams, itemCodes: new Int8Array(0) }) as Model;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    setLogLevel("warn");
    jobs = [];
    vi.spyOn(TrainingScheduler.prototype as unknown as { run(job: TrainJob): Promise<TrainerAnswer> }, "run").mockImplementation((job) => {
      jobs.push(job);
      return Promise.resolve({ model: model(), stored: job.share ? new Uint8Array(3) : null });
    });
    holds = true;
    claims = 0;
    stored = [];
    index = new OrgIndex(1);
    const nowS = Date.now() / 1000;
    index.applyEvent({ userId: "u", itemId: "i", family: "engagement", name: "view", weight: 1, previousUserId: null, atS: nowS }, nowS);
    scheduler = new TrainingScheduler(() => [index], {
      params: {} as AlsParams,
      retrainIntervalMs: 3600 * S,
      shared: {
        claim: () => Promise.resolve((claims++, holds)),
        store: (org, bytes, interactions) => Promise.resolve(void stored.push({ org, bytes: bytes.length, interactions })),
      },
    });
  });

  afterEach(async () => {
    await scheduler.stop();
    vi.restoreAllMocks();
    vi.useRealTimers();
    setLogLevel("info");
  });

  /** Advances the clock `seconds`, `perS` events a second arriving. */
  async function stream(perS: number, seconds: number): Promise<void> {
    for (let t = TICK_MS; t <= seconds * S; t += TICK_MS) {
      index.eventsSinceTraining += (perS * TICK_MS) / S;
      await vi.advanceTimersByTimeAsync(TICK_MS);
    }
  }

  it("trains with the organisation's lease, and stores the model with its items' ids for the other processes", async () => {
    await scheduler.trainNow(index);
    expect(claims).toBe(1);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.share).toEqual({ names: ["i"], interactions: 1 });
    expect(stored).toEqual([{ org: 1, bytes: 3, interactions: 1 }]);
  });

  it("does not train an organisation another process holds, and asks again only when training is due again", async () => {
    await scheduler.trainNow(index);
    holds = false;
    await stream(2_000, 25);
    expect(jobs).toHaveLength(1);
    // Due 10 s after the training; refused, due again 10 s after the refusal.
    expect(claims).toBe(1 + 2);
  });

  it("counts a model loaded from another process as a training: no training for the events it held, a retrain as after its own", async () => {
    index.eventsSinceTraining = 5_000;
    await scheduler.loaded(index, model(), 5_000);
    expect(index.model).toBeDefined();
    expect(index.eventsSinceTraining).toBe(0);
    await stream(0, 5);
    expect(claims).toBe(0);
    await stream(2_000, 4.5);
    expect(claims).toBe(0);
    await stream(2_000, 1);
    expect(claims).toBe(1);
    expect(jobs).toHaveLength(1);
  });
});
