/**
 * After the storm: the server still answers /healthz, /readyz and a valid recommend; its log holds no error
 * line (a recommender thread that died, an unhandled error, an uncaught exception); and, when GET /metrics
 * exists, its recommender restart counter is 0.
 */
import type { Fixture } from "./fixtures.js";

export interface ServerCheck {
  name: string;
  ok: boolean;
  detail: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's JSON answer, whose fields the checks read where they need them
async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

async function probe(name: string, run: () => Promise<string>): Promise<ServerCheck> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message };
  }
}

export async function stillServing(fx: Fixture): Promise<ServerCheck[]> {
  const expect200 = async (path: string, init?: RequestInit) => {
    const r = await getJson(fx.url + path, init);
    if (r.status !== 200 || r.body?.success !== true) throw new Error(`${r.status} ${r.text.slice(0, 200)}`);
    return r;
  };
  return [
    await probe("GET /healthz answers 200", async () => (await expect200("/healthz")).body.data.status),
    await probe("GET /readyz answers 200", async () => JSON.stringify((await expect200("/readyz")).body.data)),
    await probe("a valid recommend answers 200 with results", async () => {
      const r = await expect200("/v1/recommend", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": fx.a.pk },
        body: JSON.stringify({ strategy: "personalized", user_id: fx.users[0], limit: 10 }),
      });
      if (!Array.isArray(r.body.data.results) || r.body.data.results.length === 0) throw new Error(`no results: ${r.text.slice(0, 200)}`);
      return `${r.body.data.results.length} results, mode ${r.body.data.mode}`;
    }),
    await metricsCheck(fx),
  ];
}

const RESTARTS = /^recsvc_recommender_restarts_total(?:\{[^}]*\})?\s+(\S+)/gm;

/** Optional: GET /metrics may not exist (404); when it answers 200, its restart counter must sum to 0. */
async function metricsCheck(fx: Fixture): Promise<ServerCheck> {
  return probe("recommender restarts (GET /metrics)", async () => {
    const r = await getJson(`${fx.url}/metrics`, { headers: { authorization: `Bearer ${fx.metricsToken}` } });
    if (r.status !== 200) return `no metrics (${r.status}): check skipped`;
    const values = [...r.text.matchAll(RESTARTS)].map((m) => Number(m[1]));
    if (values.length === 0) return "recsvc_recommender_restarts_total not exposed: check skipped";
    const sum = values.reduce((s, v) => s + v, 0);
    if (sum !== 0) throw new Error(`recsvc_recommender_restarts_total sums to ${sum}`);
    return "recsvc_recommender_restarts_total = 0";
  });
}
