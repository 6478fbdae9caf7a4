import { log } from "./settings.js";

/** Runs a benchmark's main to its end: exit 0, or its failure on stderr and exit 1 (children it left are killed by then). */
export function runBenchmark(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      log(`benchmark failed: ${(err as Error).stack ?? String(err)}`);
      process.exit(1);
    },
  );
}
