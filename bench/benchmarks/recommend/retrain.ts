/**
 * The retrain phase: personalized at the fixed rate while the server retrains the organisation and puts the new
 * model in place, measured in three windows by each request's slot: a few seconds before the training, during
 * it (from the event that starts it to the model's log line) and the first seconds with the new model, which
 * pays whatever is done lazily on a model's first requests. Then `similar` on the new model. The server runs
 * with RECOMMEND_RETRAIN_S=1 (startPhase.ts), so one new event is enough to start a training; nothing else
 * sends events meanwhile.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Child } from "../../kit/processes.js";
import { log } from "../../kit/settings.js";
import { itemId, userId } from "../../kit/synthetic.js";
import { bodyMaker } from "./spec.js";
import { rssMb } from "../../kit/proc.js";
import { startPaced, type PacedResult } from "../traffic/paced.js";
import { postJson, viewEvent } from "../../kit/api.js";
import { logLines } from "../../kit/serverLog.js";
import { runFixedRate, target, type FixedRateRun, type Server, threadCores } from "./strategies.js";

const BEFORE_MS = 3_000;
const TRAIN_TIMEOUT_MS = 15 * 60_000;

export type RetrainFigures = Awaited<ReturnType<typeof retrainPhase>>;

export async function retrainPhase(s: Server, server: Child, orgSeq: number, rate: number, connections: number, durationS: number) {
  const trained = () => logLines(server, "recommender model trained").filter((l) => Number(l.org) === orgSeq);
  const models = trained().length;
  log(`retrain: personalized at ${rate} req/s; one event starts a training, measured before, during and ${durationS}s after the swap`);
  const threads = threadCores(s.pid);
  const run = await startPaced({ ...target(s), body: bodyMaker("personalized", s.spec), connections, rate, durationS: TRAIN_TIMEOUT_MS / 1000 });
  await sleep(Math.max(0, run.startEpochMs + BEFORE_MS - Date.now()));
  const postedAt = Date.now();
  const event = { ...viewEvent(userId(0), itemId(0)), timestamp: new Date().toISOString() };
  const posted = await postJson(`${s.url}/v1/events/ingest`, s.pk, JSON.stringify([event]));
  if (posted.status !== 202) throw new Error(`retrain: the event got ${posted.status}: ${posted.body.slice(0, 300)}`);
  let line;
  for (const until = Date.now() + TRAIN_TIMEOUT_MS; !(line = trained()[models]);) {
    if (Date.now() > until || server.proc.exitCode !== null) throw new Error("retrain: no new model");
    await sleep(100);
  }
  const swapAt = Date.parse(line.t);
  run.stopAt(swapAt + durationS * 1000);
  const whole = (await run.done).result;
  const figures = {
    // The training's own length as the server logged it, and from the event to the model's log line.
    trainingMs: Number(line.ms),
    eventToModelMs: swapAt - postedAt,
    before: run.window(run.startEpochMs, postedAt),
    during: run.window(postedAt, swapAt),
    after: run.window(swapAt, swapAt + durationS * 1000),
  };
  log(
    `  model in ${figures.eventToModelMs} ms (training ${figures.trainingMs} ms); p99 before ${figures.before.p99.toFixed(2)}, during ${figures.during.p99.toFixed(2)}, after ${figures.after.p99.toFixed(2)} ms`,
  );
  // The whole personalized run (all three windows), and similar's run on the new model.
  const runs: FixedRateRun[] = [
    { strategy: "personalized", label: "retrain (whole run)", connections, rate, load: whole as PacedResult, threads: threads() },
  ];
  runs.push(await runFixedRate(s, "similar", rate, connections, durationS, "new model"));
  return { ...figures, runs, rssAfterMb: rssMb(s.pid) };
}
