/**
 * GET /healthz at a paced rate, each latency counted from when the request was due, run on a thread of its own:
 * the hostile uploads' bodies are built on the benchmark's main thread (a megabyte string at a time), and a
 * poller sharing that event loop would time the benchmark's own stalls as the server's.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { keepAliveAgent, send } from "../traffic/keepAlive.js";
import { pace } from "../traffic/pace.js";

interface HealthzPoll {
  latencies: number[];
  failed: number;
  /** Seconds into the poll at which the slowest request was due. */
  worstAt: number;
}

interface PollJob {
  url: string;
  seconds: number;
  perSecond: number;
}

/** Polls `url`/healthz for `seconds` at `perSecond` from a worker thread and answers what it saw. */
export function pollHealthz(url: string, seconds: number, perSecond: number): Promise<HealthzPoll> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { url, seconds, perSecond } satisfies PollJob });
    worker.once("message", (poll: HealthzPoll) => resolve(poll));
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`the /healthz poller exited with ${code}`)));
  });
}

async function poll({ url, seconds, perSecond }: PollJob): Promise<HealthzPoll> {
  const agent = keepAliveAgent(256);
  const latencies: number[] = [];
  let worst = 0;
  let worstAt = 0;
  let failed = 0;
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  const ask = (due: number) =>
    pending.push(
      send(agent, new URL(url), "/healthz", {}).then((a) => {
        if (a.failure) return void failed++;
        const ms = performance.now() - due;
        if (a.status === 200) latencies.push(ms);
        else failed++;
        if (ms > worst) [worst, worstAt] = [ms, (due - start) / 1000];
      }),
    );
  await pace(perSecond, seconds * 1000, ask, start).done;
  await Promise.all(pending);
  agent.destroy();
  return { latencies, failed, worstAt };
}

if (!isMainThread && (workerData as PollJob | undefined)?.url) {
  parentPort!.postMessage(await poll(workerData as PollJob));
}
