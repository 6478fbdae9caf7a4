/**
 * Drives the mix at a fixed rate: each organisation's requests on its own keep-alive pool, with the keys it
 * holds at the moment of sending (so a key switch moves the traffic at once). Used for the soak and, with the
 * same mix and rate, against a bare endpoint for the client's floor.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Mix } from "./mix.js";
import { track, type SoakOrg } from "./orgs.js";
import { keepAliveAgent, send } from "../traffic/keepAlive.js";
import type { Tally } from "./tally.js";
import { pace } from "../traffic/pace.js";

const SOCKETS_PER_ORG = 16;
/** Longer than a request's own timeout, so everything sent ends one way or the other. */
const DRAIN_MS = 35_000;

/** Resolves with the pacer's own lateness (due time to hand-over) and the requests still unanswered when the drain gave up (0 normally). */
export async function drive(base: URL, orgs: SoakOrg[], mix: Mix, rate: number, durationMs: number, tally: Tally) {
  const agents = orgs.map(() => keepAliveAgent(SOCKETS_PER_ORG));
  const ask = (dueAt: number) => {
    const p = mix.next();
    const org = orgs[p.org]!;
    tally.sent(p.kind, dueAt);
    const untrack = track(org);
    const headers = { "content-type": "application/json", "x-api-key": org.keys[p.key] };
    void send(agents[p.org]!, base, p.path, headers, p.body).then((a) => {
      untrack();
      tally.answered(p.kind, dueAt, a.status, a.failure ?? a.body, p.strategy);
    });
  };
  const paced = pace(rate, durationMs, ask);
  await paced.done;
  const until = performance.now() + DRAIN_MS;
  while (tally.inFlight > 0 && performance.now() < until) await sleep(50);
  for (const a of agents) a.destroy();
  return { lateness: paced.lateness, unanswered: tally.inFlight };
}
