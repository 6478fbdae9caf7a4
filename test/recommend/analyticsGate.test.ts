import { describe, expect, it } from "vitest";
import { AnalyticsGate } from "../../src/recommend/analyticsGate.js";

describe("the analytics gate", () => {
  it("runs at most its concurrency at once, queues up to its queue and answers 503 analyticsBusy past that", async () => {
    const gate = new AnalyticsGate(2, 1);
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const work = () =>
      gate.run(async () => {
        most = Math.max(most, ++running);
        await new Promise<void>((r) => releases.push(r));
        running--;
        return "done";
      });
    const calls = [work(), work(), work()];
    await expect(work()).rejects.toMatchObject({ code: "unavailable", status: 503 });
    await Promise.resolve();
    expect(releases).toHaveLength(2);
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(releases).toHaveLength(2); // the queued one took the turn
    for (const r of releases.splice(0)) r();
    expect(await Promise.all(calls)).toEqual(["done", "done", "done"]);
    expect(most).toBe(2);
  });
});
