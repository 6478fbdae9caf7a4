/**
 * `npm run fuzz`: fuzzes the HTTP layer of the real server (dist/src/main.js) on an embedded PostgreSQL (or
 * DATABASE_URL; BENCH_DATABASE_URL makes a fresh database there). Every route of the README, from a valid
 * example request bent by seeded mutations: JSON-aware (fields dropped, repeated, retyped; huge, empty,
 * unicode and lone-surrogate strings; ids of 256/257/1024 characters; deep nesting; big numbers; arrays and
 * bodies at and over their limits), byte-level, headers (content types, keys, tokens, huge and malformed
 * ones), request lines (wrong methods, preflights, /api aliases, odd paths), framing (lying Content-Length,
 * odd chunks, pieces, pipelining, clients leaving mid-body) and slow clients, all over raw sockets.
 *
 * Checks: no 5xx (a 503 the service names as load shedding is reported apart), the contract's envelope on
 * every JSON answer, an answer within the bound for every well-formed request; afterwards the server still
 * serves health, readiness and a valid recommend, its log holds no error line, and (if GET /metrics exists)
 * no recommender thread restarted. Then a short phase on the default rate limits checks the 429s. Exit 1 if
 * any check failed.
 */
import { randomBytes } from "node:crypto";
import { createFixture, type Fixture } from "./fixtures.js";
import { newSeed } from "./prng.js";
import { rateLimitPhase, type PhaseResult } from "./rateLimitPhase.js";
import { replayLine, Tally } from "./report.js";
import { Runner } from "./runner.js";
import type { SendLimits } from "./sender.js";
import { stillServing, type ServerCheck } from "./serverChecks.js";
import { prepareStorage, type Storage } from "../kit/storage.js";
import { startServer, stopChild, type Child } from "../kit/processes.js";
import { readFlags } from "../kit/flags.js";
import { runBenchmark } from "../kit/run.js";
import { logProblems } from "../kit/serverLog.js";
import { log } from "../kit/settings.js";

type FuzzArgs = ReturnType<typeof parseArgs>;

const DEFAULT_SECONDS = 120;

function parseArgs() {
  const flags = readFlags({
    seed: { help: "N: the run's seed (printed; replays a run)" },
    requests: { help: "N: cases to send" },
    seconds: { help: "S: how long to send cases (default 120)" },
    concurrency: { help: "N: cases in flight (default 8)" },
    slow: { help: "N: slow-client lanes (default 2)" },
    case: { multiple: true, help: "N: replay one case of --seed (repeatable)" },
    "no-limits-phase": { boolean: true, help: "skip the phase on the default rate limits" },
  });
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

/** The hang bounds: a well-formed request's answer; a broken one's wait; a held connection's life. */
const LIMITS: SendLimits = { answerMs: 20_000, maybeMs: 1_500, holdMs: 15_000 };
const UNLIMITED = "1000000000";

async function storage(): Promise<Storage> {
  const url = process.env.DATABASE_URL;
  return url ? { databaseUrl: url, release: async () => undefined } : prepareStorage();
}

interface Outcome {
  tally: Tally;
  suspects: string[];
  serverChecks: ServerCheck[];
  logLines: string[];
  limits: PhaseResult | undefined;
  shutdown: string[];
  seconds: number;
}

async function fuzzPhase(args: FuzzArgs, store: Storage, out: Outcome): Promise<Fixture | undefined> {
  const metricsToken = randomBytes(16).toString("hex");
  const { server, url } = await startServer(store, {
    AUTH_RATE_LIMIT_MAX: UNLIMITED,
    LOGIN_FAILURES_MAX: UNLIMITED,
    MEMBERS_RATE_LIMIT_MAX: UNLIMITED,
    METRICS_TOKEN: metricsToken,
  });
  try {
    log(`server on ${url}; setting up organisations, keys and data`);
    const fx = await createFixture(url, metricsToken, server.output);
    log(
      `fuzzing: seed ${args.seed}, ${args.cases ? `cases ${args.cases.join(", ")}` : `${args.seconds} s or ${args.requests} cases`}, concurrency ${args.concurrency}, ${args.slowLanes} slow lanes`,
    );
    const runner = new Runner(
      {
        seed: args.seed,
        fx,
        limits: LIMITS,
        concurrency: args.concurrency,
        slowLanes: args.slowLanes,
        maxCases: args.requests,
        deadline: performance.now() + args.seconds * 1000,
        only: args.cases,
      },
      out.tally,
    );
    let dead = false;
    // `exited` only ever resolves (processes.ts), so nothing is left unhandled.
    void server.exited.then(() => {
      dead = true;
      runner.serverDied();
    });
    const t0 = performance.now();
    await runner.run();
    out.seconds = (performance.now() - t0) / 1000;
    if (dead || server.proc.exitCode !== null) {
      out.suspects = runner.suspects.map((c) => replayLine(args.seed, c, undefined, undefined));
      out.tally.fail({ check: "server-down", detail: `the server exited (${server.proc.exitCode ?? server.proc.signalCode}) during the run` }, "");
      return undefined;
    }
    out.serverChecks = await stillServing(fx);
    return fx;
  } finally {
    await finish(server, "fuzzed server", out);
  }
}

/** Stops a server: it must exit 0 (a clean shutdown); its log is scanned for error lines. */
async function finish(server: Child, name: string, out: Outcome): Promise<void> {
  const wasRunning = server.proc.exitCode === null && server.proc.signalCode === null;
  await stopChild(server);
  if (wasRunning && server.proc.exitCode !== 0) out.shutdown.push(`${name}: exit ${server.proc.exitCode ?? server.proc.signalCode} on SIGTERM`);
  out.logLines.push(...logProblems(server.output()).map((l) => `${name}: ${l}`));
}

async function limitsPhase(store: Storage, fx: Fixture, out: Outcome): Promise<void> {
  log("rate-limit phase: a server on the default limits");
  const { server, url } = await startServer(store, { RATE_LIMIT_MAX: undefined, AUTH_RATE_LIMIT_MAX: undefined });
  try {
    out.limits = await rateLimitPhase(url, fx);
  } finally {
    await finish(server, "default-limits server", out);
  }
}

function print(args: FuzzArgs, out: Outcome): number {
  const t = out.tally;
  const serverFailures = out.serverChecks.filter((c) => !c.ok).length;
  const failures = t.failureCount + serverFailures + out.logLines.length + (out.limits?.problems.length ?? 0) + out.shutdown.length;
  const p = (s = "") => process.stdout.write(s + "\n");
  p();
  p(
    `Fuzz run: seed ${args.seed}, ${t.cases} cases in ${out.seconds.toFixed(0)} s (concurrency ${args.concurrency}, ${args.slowLanes} slow-client lanes)`,
  );
  p(
    `replay: npm run fuzz -- --seed ${args.seed}${Number.isFinite(args.requests) ? ` --requests ${args.requests}` : ""}   one case: npm run fuzz -- --seed ${args.seed} --case N`,
  );
  p();
  p("Counts by route and outcome (a status; uws-N: uWS's own answer; closed/reset/timeout: no answer; client-left: the case hung up on purpose):");
  p(t.routeTable());
  p();
  p("Counts by mutation kind (a case with two mutations counts under both):");
  p(t.mutationTable());
  p();
  p(`503 load shedding (reported, not failures): ${t.shedding.size === 0 ? "none" : [...t.shedding].map(([m, n]) => `${n}× ${m}`).join("; ")}`);
  p();
  p("After the run:");
  for (const c of out.serverChecks) p(`  [${c.ok ? "ok" : "FAIL"}] ${c.name}: ${c.detail}`);
  for (const s of out.shutdown) p(`  [FAIL] ${s}`);
  p(`  [${out.logLines.length ? "FAIL" : "ok"}] server log: ${out.logLines.length ? `${out.logLines.length} error lines` : "no error lines"}`);
  for (const l of out.logLines.slice(0, 20)) p(`    ${l}`);
  if (out.limits) {
    p();
    p("Default rate limits:");
    for (const l of out.limits.lines) p(`  ${l}`);
    for (const l of out.limits.problems) p(`  [FAIL] ${l}`);
  }
  if (out.suspects.length) {
    p();
    p("The server died; the cases in flight (or just dropped) then, one of which killed it:");
    for (const s of out.suspects) p(`  ${s}`);
  }
  if (t.failures.length) {
    p();
    p(`Failures (${t.failureCount}; the first ${t.failures.length}, as replayable lines):`);
    for (const f of t.failures) p(`  ${f.finding.check}: ${f.finding.detail}\n    ${f.line}`);
  }
  p();
  p(failures === 0 ? "PASS: no 5xx, no hang, no crash, every answer enveloped" : `FAIL: ${failures} failed checks`);
  return failures === 0 ? 0 : 1;
}

async function main(): Promise<void> {
  const args = parseArgs();
  log(`fuzz seed ${args.seed}`);
  const store = await storage();
  const out: Outcome = { tally: new Tally(args.seed), suspects: [], serverChecks: [], logLines: [], limits: undefined, shutdown: [], seconds: 0 };
  let code: number;
  try {
    const fx = await fuzzPhase(args, store, out);
    if (fx && !args.skipLimits && !args.cases) await limitsPhase(store, fx, out);
    code = print(args, out);
  } finally {
    await store.release();
  }
  // runBenchmark exits 0 once main resolves: a failed check exits 1 here.
  if (code !== 0) process.exit(1);
}

runBenchmark(main);
