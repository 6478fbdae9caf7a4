import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Rounds } from "../../src/db/rounds.js";

describe("rounds of background work", () => {
  it("runs a round at once, then every interval, never two at a time, and goes on after a failed one", async () => {
    let started = 0;
    let running = 0;
    let most = 0;
    const rounds = new Rounds(
      "test rounds",
      async () => {
        started++;
        running++;
        most = Math.max(most, running);
        await sleep(30);
        running--;
        if (started === 1) throw new Error("the first round fails");
      },
      10,
    );
    rounds.start();
    expect(started).toBe(1);
    await sleep(200);
    await rounds.stop();
    const after = started;
    expect(after).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
    expect(running).toBe(0);
    await sleep(50);
    expect(started).toBe(after);
  });
});
