import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { isTrainingDue, smoothedRate, TrainingScheduler, type OrgTraining } from "../../../workers/recommender/trainingScheduler.js";
import type { AlsParams } from "../../../workers/training/als.js";
import type { Model } from "../../../workers/training/model.js";

const S = 1000;
const HOUR = 3600 * S;
/** An organisation last trained at t = 0 on 100,000 interactions, the training having taken `lastMs`. */
const trainedAtZero = (lastMs: number): OrgTraining => ({ lastStart: 0, lastMs, trainedOn: 100_000, firstEventAt: 0 });

describe("isTrainingDue", () => {
  it("trains a first model a second after an organisation's first events", () => {
    const s: OrgTraining = { lastStart: 0, lastMs: 0, trainedOn: 0, firstEventAt: 5 * S };
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
    const first: OrgTraining = { lastStart: 0, lastMs: 0, trainedOn: 0, firstEventAt: 5 * S };
    expect(isTrainingDue(first, false, 10, 6 * S, HOUR, 150_000)).toBe(true);
    expect(isTrainingDue(trainedAtZero(100), true, 1, 10 * 60 * S, 10 * 60 * S, 150_000)).toBe(true);
  });

  it("keeps the scheduled retrain however long the last training took", () => {
    const s = trainedAtZero(600 * S);
    expect(isTrainingDue(s, true, 1, 10 * 60 * S - 1, 10 * 60 * S, 0)).toBe(false);
    expect(isTrainingDue(s, true, 1, 10 * 60 * S, 10 * 60 * S, 0)).toBe(true);
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

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    index = new OrgIndex(1);
    // Only whether a model exists matters to the schedule; the index holds no interactions, so a training
    // started here ends at once without a training thread and shows as eventsSinceTraining back at 0.
    index.model = {} as Model;
    scheduler = new TrainingScheduler(() => [index], { params: {} as AlsParams, retrainIntervalMs: 3600 * S });
    await scheduler.trainNow(index);
  });

  afterEach(async () => {
    await scheduler.stop();
    vi.useRealTimers();
  });

  /** Seconds until a training starts while `perS` events a second arrive, or undefined within `seconds`. */
  function secondsUntilTrained(perS: number, seconds: number): number | undefined {
    for (let t = TICK_MS; t <= seconds * S; t += TICK_MS) {
      const before = index.eventsSinceTraining + (perS * TICK_MS) / S;
      index.eventsSinceTraining = before;
      vi.advanceTimersByTime(TICK_MS);
      if (index.eventsSinceTraining < before) return t / S;
    }
    return undefined;
  }

  it("retrains 10 s after the last training under a light stream", () => {
    expect(secondsUntilTrained(2_000, 30)).toBe(10);
  });

  it("holds the retrain back during a bulk load and trains once the load has stopped for a few seconds", () => {
    expect(secondsUntilTrained(150_000, 40)).toBeUndefined();
    const quietFor = secondsUntilTrained(0, 30);
    expect(quietFor).toBeGreaterThan(5);
    expect(quietFor).toBeLessThan(15);
  });

  it("retrains a minute late under a load that does not stop", () => {
    expect(secondsUntilTrained(150_000, 90)).toBe(70);
  });
});
