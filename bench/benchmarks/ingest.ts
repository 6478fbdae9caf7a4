/**
 * `npm run bench:ingest`: durable ingestion throughput of the real server on a real PostgreSQL, beside two ceilings
 * measured in the same run: rows COPYed straight into PostgreSQL from one client, and a bare uWebSockets.js
 * endpoint that only answers 202. Its settings (environment) are shared by the other benchmarks: bench/kit/settings.ts.
 */
import os from "node:os";
import pg from "pg";
import { bareUwsCeiling } from "./ingest/bareUwsCeiling.js";
import { copyCeiling } from "./ingest/copyCeiling.js";
import { connectionUrl, serverVersion } from "../kit/storage.js";
import { registerOrg, orgSeq } from "../kit/org.js";
import { withFreshServer } from "../kit/processes.js";
import { report, type Ceilings } from "./ingest/report.js";
import { ingestScenario, type Bench, type ScenarioResult } from "./ingest/scenario.js";
import { log, SCENARIOS, SKIP_CEILINGS } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";

const NOT_MEASURED: Ceilings = { copy: NaN, copy2: NaN, uws: { reqPerS: NaN, p50: NaN, p99: NaN, frontCpuUsPerReq: NaN, otherCores: NaN } };

async function measureCeilings(databaseUrl: string, org: number): Promise<Ceilings> {
  log("ceiling (b): bare uWS endpoint, answer only");
  const uws = SKIP_CEILINGS ? NOT_MEASURED.uws : await bareUwsCeiling();
  log("ceiling (a): direct COPY into PostgreSQL");
  const copy = SKIP_CEILINGS ? NaN : await copyCeiling(databaseUrl, org, 1);
  log("ceiling (a'): direct COPY into PostgreSQL from two clients");
  const copy2 = SKIP_CEILINGS ? NaN : await copyCeiling(databaseUrl, org, 2);
  return { copy, copy2, uws };
}

async function main(): Promise<void> {
  const loadAverageAtStart = os.loadavg()[0];
  await withFreshServer({}, async ({ server, url, storage }) => {
    const databaseUrl = connectionUrl(storage);
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const { orgId, pk } = await registerOrg(url);
    const bench: Bench = { url, pk, org: await orgSeq(db, orgId), db, serverPid: server.proc.pid, dataDir: storage.dataDir };
    const postgresVersion = await serverVersion(db);

    const ceilings = await measureCeilings(databaseUrl, bench.org);
    const results: ScenarioResult[] = [];
    for (const n of SCENARIOS) {
      log(`server: POST /v1/events/ingest`);
      results.push(await ingestScenario(bench, n));
    }
    process.stdout.write(report({ postgresVersion, embedded: Boolean(storage.dataDir), loadAverageAtStart }, results, ceilings));
    await db.end();
  });
}

runBenchmark(main);
