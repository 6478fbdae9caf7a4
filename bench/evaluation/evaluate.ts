/**
 * Offline evaluation of the recommender on an interactions file: holds out part of each user's interactions
 * (latest or at random), rebuilds the index and model from the rest with the server's own code, and measures
 * how well each strategy recovers what was held out, beside textbook references of the same split.
 * See bench/evaluation/args.ts for the flags.
 */
import { parseEvaluateArgs, USAGE, type EvaluateArgs } from "./args.js";
import { readInteractions } from "./csv.js";
import { runEvaluation } from "./evaluation.js";
import { readGivenSplit } from "./lightGcnSplit.js";
import { formatReport } from "./report.js";

const log = (s: string): void => void process.stderr.write(s + "\n");

async function main(args: EvaluateArgs): Promise<void> {
  const started = performance.now();
  const data = args.protocol === "given" ? await readGivenSplit(args.data) : await readInteractions(args.data);
  log(`${Array.isArray(data) ? data.length : data.rows} rows read in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const report = runEvaluation(data, args, log);
  console.log(args.json ? JSON.stringify(report) : formatReport(report));
}

let args: EvaluateArgs;
try {
  args = parseEvaluateArgs(process.argv.slice(2));
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
main(args).catch((err) => {
  console.error(err);
  process.exit(1);
});
