/** The fuzz run's flags (documented at the top of bench/fuzz/fuzz.ts and in the README). */
import { newSeed } from "./prng.js";

export interface FuzzArgs {
  seed: number;
  /** Ordinary cases at most. */
  requests: number;
  /** Seconds of fuzzing at most. */
  seconds: number;
  concurrency: number;
  slowLanes: number;
  /** Replay only these case numbers (of `seed`). */
  cases: number[] | undefined;
  /** Skip the phase on default rate limits. */
  skipLimits: boolean;
}

const DEFAULT_SECONDS = 120;

export function parseArgs(argv: string[]): FuzzArgs {
  const a: FuzzArgs = {
    seed: newSeed(),
    requests: Infinity,
    seconds: DEFAULT_SECONDS,
    concurrency: 8,
    slowLanes: 2,
    cases: undefined,
    skipLimits: false,
  };
  let requestsGiven = false;
  let secondsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const num = () => {
      const n = Number(value());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} needs a non-negative number`);
      return n;
    };
    if (flag === "--seed") a.seed = num() >>> 0;
    else if (flag === "--requests") {
      a.requests = num();
      requestsGiven = true;
    } else if (flag === "--seconds") {
      a.seconds = num();
      secondsGiven = true;
    } else if (flag === "--concurrency") a.concurrency = Math.max(1, num());
    else if (flag === "--slow") a.slowLanes = num();
    else if (flag === "--case") (a.cases ??= []).push(num());
    else if (flag === "--no-limits-phase") a.skipLimits = true;
    else throw new Error(`unknown flag ${flag} (flags: --seed N, --requests N, --seconds S, --concurrency N, --slow N, --case N, --no-limits-phase)`);
  }
  // --requests alone means that many cases, however long they take.
  if (requestsGiven && !secondsGiven) a.seconds = Infinity;
  return a;
}
