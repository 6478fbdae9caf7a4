import { describe, expect, it } from "vitest";
import { BatchQueue } from "../../../workers/recommender/batchQueue.js";
import { FairScheduler } from "../../../workers/recommender/fairScheduler.js";

/** A job of `n` steps, each busy for `ms`, recording its name at the end of each step. */
function* busySteps(name: string, n: number, ms: number, seen: string[]): Generator<void, void> {
  for (let i = 0; i < n; i++) {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // busy on purpose: a step of real work
    }
    seen.push(name);
    yield;
  }
}

/** A queue given turns as the recommender thread gives it (recommenderThread.ts's settings). */
function queue(): BatchQueue {
  const scheduler = new FairScheduler({ quantumMs: 1, turnMax: 8, sliceMs: 2 });
  return new BatchQueue((q) => scheduler.wake(q));
}

describe("BatchQueue", () => {
  it("applies batches whole and in the order they came", async () => {
    const seen: string[] = [];
    const done: string[] = [];
    const q = queue();
    q.add(busySteps("a", 5, 1, seen), () => done.push("a"));
    await new Promise<void>((resolve) =>
      q.add(busySteps("b", 3, 0, seen), () => {
        done.push("b");
        resolve();
      }),
    );
    expect(seen).toEqual(["a", "a", "a", "a", "a", "b", "b", "b"]);
    expect(done).toEqual(["a", "b"]);
  });

  it("lets the thread's other work run between slices of a long batch", async () => {
    const seen: string[] = [];
    const q = queue();
    // Waits for the batch itself, not a fixed time: a busy machine may take longer than 50 ms over 20 ms of steps.
    const finished = new Promise<void>((resolve) =>
      q.add(busySteps("batch", 20, 1, seen), () => {
        seen.push("done");
        resolve();
      }),
    );
    setImmediate(() => seen.push("request"));
    await finished;
    expect(seen.indexOf("request")).toBeGreaterThan(0);
    expect(seen.indexOf("request")).toBeLessThan(seen.indexOf("done"));
  });

  it("drops the rest of a batch whose step throws, and goes on with the next", async () => {
    const done: string[] = [];
    const q = queue();
    function* failing(): Generator<void, void> {
      yield;
      throw new Error("broken");
    }
    q.add(failing(), () => done.push("failing"));
    await new Promise<void>((resolve) =>
      q.add(busySteps("next", 2, 0, []), () => {
        done.push("next");
        resolve();
      }),
    );
    expect(done).toEqual(["failing", "next"]);
  });
});
