import type { OrgIndex } from "../index/orgIndex.js";
import { TrainingSetBuilder, type TrainingSet } from "../training/trainingSet.js";
import { DEFAULT_TRAINING_ENTRIES_MAX } from "../../src/wire/trainingBudget.js";

/** Time the shard gives the training set at a stretch before it answers the requests that came meanwhile. */
const SLICE_MS = 2;
/** Users read between two looks at the clock. */
const USERS_PER_CHECK = 64;

/**
 * trainingSet() built a few milliseconds at a time: the same matrix, but the shard answers rank requests between
 * slices. Built in one go it holds a large organisation's shard for hundreds of milliseconds, and each request
 * that comes meanwhile waits for it.
 */
export async function trainingSetInSlices(
  index: OrgIndex,
  entriesMax = DEFAULT_TRAINING_ENTRIES_MAX,
  pause: () => Promise<void> = nextTurn,
  sliceMs = SLICE_MS,
): Promise<TrainingSet> {
  const builder = new TrainingSetBuilder(index, entriesMax);
  let sliceStart = performance.now();
  for (let more = true; more;) {
    if (performance.now() - sliceStart >= sliceMs) {
      await pause();
      sliceStart = performance.now();
    }
    for (let k = 0; k < USERS_PER_CHECK && more; k++) more = builder.addUser();
  }
  return builder.finish();
}

/** Lets the thread take the messages that arrived (setImmediate runs after the event loop's poll for I/O). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
