/**
 * Which of the server's threads were busy during a run: the front (main) thread answers HTTP, a recommender
 * shard thread ranks, so the two numbers say which one a strategy's rate is limited by.
 */
import { threadCpu } from "../../kit/proc.js";

export interface ThreadCores {
  /** Cores used by the main thread (HTTP, validation, JSON of the answer). */
  front: number;
  /** The busiest other thread (for one organisation: its recommender shard), as `name#tid`, and its cores. */
  busiest: string;
  busiestCores: number;
}

/** Starts counting; call the returned function at the end of the run. */
export function threadCores(pid: number | undefined): () => ThreadCores {
  const before = threadCpu(pid);
  const at = performance.now();
  return () => {
    const s = (performance.now() - at) / 1000;
    let front = NaN;
    let busiest = "";
    let busiestCores = 0;
    for (const [thread, after] of threadCpu(pid)) {
      const cores = (after - (before.get(thread) ?? 0)) / s;
      if (thread.endsWith(`#${pid}`)) front = cores;
      else if (cores > busiestCores) [busiest, busiestCores] = [thread, cores];
    }
    return { front, busiest, busiestCores };
  };
}
