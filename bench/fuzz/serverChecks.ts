/**
 * After the storm: the server still answers /healthz, /readyz and a valid recommend; its log holds no error
 * line (a recommender thread that died, an unhandled error, an uncaught exception); and, when GET /metrics
 * exists, its recommender restart counter is 0.
 */
import { call, type CallOptions } from "../kit/api.js";
import type { Fixture } from "./fixtures.js";

export interface ServerCheck {
  name: string;
  ok: boolean;
  detail: string;
}

async function probe(name: string, run: () => Promise<string>): Promise<ServerCheck> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message };
  }
}

export async function stillServing(fx: Fixture): Promise<ServerCheck[]> {
  const expect200 = async (path: string, o?: CallOptions) => {
    const r = await call(fx.url + path, { ...o, timeoutMs: 10_000 });
    if (r.status !== 200 || r.json?.success !== true) throw new Error(`${r.status} ${r.text.slice(0, 200)}`);
    return r;
  };
  return [
    await probe("GET /healthz answers 200", async () => (await expect200("/healthz")).json.data.status),
    await probe("GET /readyz answers 200", async () => JSON.stringify((await expect200("/readyz")).json.data)),
    await probe("a valid recommend answers 200 with results", async () => {
      const r = await expect200("/v1/recommend", { key: fx.a.pk, json: { strategy: "personalized", user_id: fx.users[0], limit: 10 } });
      const { results, mode } = r.json.data;
      if (!Array.isArray(results) || results.length === 0) throw new Error(`no results: ${r.text.slice(0, 200)}`);
      return `${results.length} results, mode ${mode}`;
    }),
    await metricsCheck(fx),
  ];
}

const RESTARTS = /^recsvc_recommender_restarts_total(?:\{[^}]*\})?\s+(\S+)/gm;

/** Optional: GET /metrics may not exist (404); when it answers 200, its restart counter must sum to 0. */
async function metricsCheck(fx: Fixture): Promise<ServerCheck> {
  return probe("recommender restarts (GET /metrics)", async () => {
    const r = await call(`${fx.url}/metrics`, { token: fx.metricsToken, timeoutMs: 10_000 });
    if (r.status !== 200) return `no metrics (${r.status}): check skipped`;
    const values = [...r.text.matchAll(RESTARTS)].map((m) => Number(m[1]));
    if (values.length === 0) return "recsvc_recommender_restarts_total not exposed: check skipped";
    const sum = values.reduce((s, v) => s + v, 0);
    if (sum !== 0) throw new Error(`recsvc_recommender_restarts_total sums to ${sum}`);
    return "recsvc_recommender_restarts_total = 0";
  });
}
