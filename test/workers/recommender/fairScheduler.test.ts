import { describe, expect, it } from "vitest";
import { FairScheduler, type Work } from "../../../workers/recommender/fairScheduler.js";

/**
 * A scheduler on a clock of its own: each unit of work moves the clock by its cost, and a slice runs only when
 * the test says, so what is served in which order does not depend on the machine's speed.
 */
function harness(opts: { quantumMs?: number; turnMax?: number; sliceMs?: number } = {}) {
  let now = 0;
  const slices: Array<() => void> = [];
  const served: string[] = [];
  let sliceEnds = 0;
  const scheduler = new FairScheduler({
    quantumMs: opts.quantumMs ?? 1,
    turnMax: opts.turnMax ?? 8,
    sliceMs: opts.sliceMs ?? 2,
    clock: () => now,
    defer: (run) => slices.push(run),
    sliceEnded: () => sliceEnds++,
  });
  /** A lane whose units cost `costMs` each (a function of the unit's number for uneven ones). */
  const lane = (name: string, units: number, costMs: number | ((k: number) => number)): Work & { left: number } => {
    let k = 0;
    const work = {
      left: units,
      get waiting() {
        return work.left > 0;
      },
      runOne() {
        now += typeof costMs === "number" ? costMs : costMs(k);
        k++;
        work.left--;
        served.push(name);
      },
    };
    return work;
  };
  /** Runs slices until no lane has work (or `max` slices). */
  const runSlices = (max = Infinity) => {
    for (let n = 0; n < max && slices.length > 0; n++) slices.shift()!();
  };
  return {
    scheduler,
    lane,
    served,
    slices,
    runSlices,
    sliceEnds: () => sliceEnds,
    advance: (ms: number) => (now += ms),
    now: () => now,
  };
}

/** How many of `name`'s units were served before `other`'s first. */
const before = (served: string[], name: string, other: string) => served.slice(0, served.indexOf(other)).filter((s) => s === name).length;

describe("FairScheduler (deficit round robin over a shard's lanes, by measured time)", () => {
  it("serves a lane's one unit after at most turnMax units of a lane that has thousands waiting before it", () => {
    const h = harness({ turnMax: 8 });
    const flood = h.lane("A", 5000, 0.01);
    const one = h.lane("B", 1, 0.01);
    h.scheduler.wake(flood);
    h.scheduler.wake(one);
    h.runSlices();
    expect(before(h.served, "A", "B")).toBeLessThanOrEqual(8);
    expect(h.served.length).toBe(5001);
  });

  it("ends a lane's turn once it has used its quantum, so expensive units wait for cheaper lanes' turns", () => {
    const h = harness({ quantumMs: 1, turnMax: 8 });
    const heavy = h.lane("A", 100, 3);
    const light = h.lane("B", 3, 0.1);
    h.scheduler.wake(heavy);
    h.scheduler.wake(light);
    h.runSlices();
    // One unit of A (it overruns its quantum), then B's three, cheaper than one quantum.
    expect(h.served.slice(0, 4)).toEqual(["A", "B", "B", "B"]);
  });

  it("shares the thread's time equally, not the count of units, between lanes that both keep work waiting", () => {
    const h = harness({ quantumMs: 1, turnMax: 8 });
    const heavy = h.lane("A", 100_000, 5);
    const light = h.lane("B", 100_000, 0.25);
    h.scheduler.wake(heavy);
    h.scheduler.wake(light);
    h.runSlices(2_000);
    const a = h.served.filter((s) => s === "A").length * 5;
    const b = h.served.filter((s) => s === "B").length * 0.25;
    // Equal shares of the time, within one unit of A and one quantum.
    expect(Math.abs(a - b)).toBeLessThanOrEqual(5 + 1);
    expect(a + b).toBeGreaterThan(1_000);
  });

  it("keeps a lane that overran in debt while another has work, and lets time away repay it", () => {
    const h = harness({ quantumMs: 1, turnMax: 8 });
    const slow = h.lane("A", 2, 50);
    h.scheduler.wake(slow);
    h.runSlices(1); // A's first unit: 50 ms where it had 1
    const busy = h.lane("B", 1_000, 1);
    h.scheduler.wake(busy);
    h.runSlices();
    // B had the thread for as long as A's overrun before A's second unit.
    expect(before(h.served.slice(1), "B", "A")).toBeGreaterThanOrEqual(45);
    expect(before(h.served.slice(1), "B", "A")).toBeLessThanOrEqual(52);

    // Away for longer than its overrun, a lane owes nothing: it is served in the next round.
    h.served.length = 0;
    const again = h.lane("C", 1, 50);
    h.scheduler.wake(again);
    h.runSlices();
    h.advance(60);
    again.left = 1;
    h.scheduler.wake(h.lane("B", 1_000, 1));
    h.scheduler.wake(again);
    h.runSlices();
    expect(before(h.served.slice(1), "B", "C")).toBe(1);
  });

  it("yields to the event loop after each slice, so that asks that came meanwhile join the round", () => {
    const h = harness({ sliceMs: 2 });
    const flood = h.lane("A", 1_000, 0.5);
    h.scheduler.wake(flood);
    h.runSlices(1);
    // A slice ran about sliceMs of work (the unit that crosses it finishes), and the next slice is scheduled.
    expect(h.served.length).toBeGreaterThanOrEqual(4);
    expect(h.served.length).toBeLessThanOrEqual(5);
    expect(h.sliceEnds()).toBe(1);
    expect(h.slices.length).toBe(1);
    const late = h.lane("B", 1, 0.5);
    h.scheduler.wake(late);
    h.runSlices(1);
    expect(h.served).toContain("B");
  });

  it("stops scheduling slices once no lane has work, and starts again when one is woken", () => {
    const h = harness();
    h.scheduler.wake(h.lane("A", 3, 0.1));
    h.runSlices();
    expect(h.slices.length).toBe(0);
    expect(h.scheduler.size).toBe(0);
    h.scheduler.wake(h.lane("B", 1, 0.1));
    expect(h.slices.length).toBe(1);
    h.runSlices();
    expect(h.served).toEqual(["A", "A", "A", "B"]);
  });

  it("goes on with the other lanes when a unit of work throws", () => {
    const h = harness();
    let thrown = 0;
    const broken: Work = {
      get waiting() {
        return thrown < 3;
      },
      runOne() {
        thrown++;
        throw new Error("broken on purpose");
      },
    };
    h.scheduler.wake(broken);
    h.scheduler.wake(h.lane("B", 2, 0.1));
    h.runSlices();
    expect(thrown).toBe(3);
    expect(h.served).toEqual(["B", "B"]);
    expect(h.slices.length).toBe(0);
  });
});
