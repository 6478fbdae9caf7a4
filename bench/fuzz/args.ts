/** The fuzz run's flags (documented at the top of bench/fuzz/fuzz.ts and in the README). */
import { readFlags } from "../kit/flags.js";
import { newSeed } from "./prng.js";

export type FuzzArgs = ReturnType<typeof parseArgs>;

const DEFAULT_SECONDS = 120;

export function parseArgs(argv: string[]) {
  const flags = readFlags(
    { seed: {}, requests: {}, seconds: {}, concurrency: {}, slow: {}, case: { multiple: true }, "no-limits-phase": { boolean: true } },
    argv,
  );
  const count = { min: 0 };
  return {
    seed: flags.given("seed") ? flags.number("seed", 0, count) >>> 0 : newSeed(),
    requests: flags.number("requests", Infinity, count),
    // --requests alone means that many cases, however long they take.
    seconds: flags.number("seconds", flags.given("requests") ? Infinity : DEFAULT_SECONDS, count),
    concurrency: Math.max(1, flags.number("concurrency", 8, count)),
    slowLanes: flags.number("slow", 2, count),
    /** Replay only these case numbers (of `seed`). */
    cases: flags.given("case") ? flags.all("case").map((c) => Number(c)) : undefined,
    skipLimits: flags.on("no-limits-phase"),
  };
}
