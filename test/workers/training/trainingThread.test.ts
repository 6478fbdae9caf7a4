import { readdirSync, readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";

const TRAINER = new URL("../../../dist/workers/training/trainingThread.js", import.meta.url);

/** The nice value of each thread of this process (Linux keeps nice values per thread). */
function niceValues(): number[] {
  return readdirSync("/proc/self/task").map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]); // field 19 of stat: nice
  });
}

let trainer: Worker | undefined;
afterAll(async () => {
  await trainer?.terminate();
});

/** Under `nice -n 19` (as CI may be run) every thread starts at 19 already, and the trainer's cannot be told apart. */
const canTell = process.platform === "linux" && !niceValues().includes(19);

describe("the training thread", () => {
  it.runIf(canTell)("runs at nice 19, so that training yields the cores to serving and ingestion", async () => {
    expect(niceValues()).not.toContain(19);
    trainer = new Worker(TRAINER);
    await new Promise<void>((resolve, reject) => {
      trainer!.once("online", () => resolve());
      trainer!.once("error", reject);
    });
    await expect.poll(niceValues).toContain(19);
  });
});
