/**
 * Freshness across processes (issue 27, 2b): a change accepted by one process of the pair, and the time until
 * the other's recommendations show it. Each sample sends to process A directly and asks process B directly
 * (not through HAProxy, so which process is which is known), alternating A and B from sample to sample.
 *   events: one view of a known item by a user never seen before; B is asked for that user's recently-viewed
 *           until the item is in it.
 *   hides:  an item made and viewed through A, seen in B's recently-viewed, then made inactive through A;
 *           B is asked until it is gone.
 * Time runs from A's 202 to the arrival of B's first answer that shows the change, so it includes one
 * request to B and up to POLL_MS of waiting between asks.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { Latencies } from "../../kit/latencies.js";
import { call, viewEvent as view } from "../../kit/api.js";
import { log } from "../../kit/settings.js";
import { itemId } from "../../kit/synthetic.js";

export const POLL_MS = 10;
/** A change not seen by then counts as missed (and is left out of the percentiles). */
const DEADLINE_MS = 10_000;
const SAMPLERS = 4;

interface Pair {
  a: string;
  b: string;
}

export interface Org {
  pk: string;
  sk: string;
  items: number;
}

export type Freshness = Awaited<ReturnType<typeof sampled>>;

const post = (url: string, key: string, json: unknown) => call(url, { key, json });

let refusedLogged = false;

/**
 * The user's recently viewed items through `url`; a fallback answer (popular items) reads as none. Any other
 * answer than 200 (a 503 while the shard is busy, say) is undefined, asked again at the next poll, and logged once.
 */
async function recentlyViewed(url: string, pk: string, user: string): Promise<string[] | undefined> {
  const r = await post(`${url}/v1/recommend`, pk, { strategy: "recently-viewed", user_id: user, limit: 20 });
  const data = (r.json as { data?: { mode: string; recommended_items: string[] } } | undefined)?.data;
  if (r.status !== 200 || !data) {
    if (!refusedLogged) log(`    recently-viewed answered ${r.status} (asked again; logged once): ${JSON.stringify(r.json).slice(0, 300)}`);
    refusedLogged = true;
    return undefined;
  }
  return data.mode === "fallback" ? [] : data.recommended_items;
}

/** Milliseconds from now until `seen` holds for the user's recently-viewed on B (`url`); NaN past the deadline. */
async function untilSeen(url: string, pk: string, user: string, seen: (items: string[]) => boolean): Promise<number> {
  const since = performance.now();
  for (;;) {
    const items = await recentlyViewed(url, pk, user);
    const now = performance.now();
    if (items && seen(items)) return now - since;
    if (now - since > DEADLINE_MS) return NaN;
    await sleep(POLL_MS);
  }
}

/** Runs `samples` samples, SAMPLERS at a time, each with a short seeded pause after it so that they do not march in step. */
async function sampled(samples: number, concurrency: number, seed: number, pair: Pair, one: (i: number, pair: Pair) => Promise<number>) {
  const random = seededRandom(seed);
  const times = new Latencies();
  let next = 0;
  let missed = 0; // not seen within DEADLINE_MS, or the change itself refused
  const sampler = async () => {
    while (next < samples) {
      const i = next++;
      const ms = await one(i, i % 2 === 0 ? pair : { a: pair.b, b: pair.a });
      if (Number.isNaN(ms)) missed++;
      else times.add(ms);
      if ((i + 1) % Math.max(1, Math.round(samples / 5)) === 0) log(`    ${i + 1} / ${samples}`);
      await sleep(random() * 50);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sampler));
  const [p50, p99, max] = times.percentiles([0.5, 0.99, 1]);
  return { samples, missed, p50: p50!, p99: p99!, max: max! };
}

/** Events accepted by A, read through B. `tag` keeps each run's users apart. */
export function eventFreshness(pair: Pair, org: Org, samples: number, tag: string, seed: number) {
  const random = seededRandom(seed + 1);
  return sampled(samples, SAMPLERS, seed, pair, async (i, p) => {
    const user = `fresh-${tag}-${i}`;
    const item = itemId(Math.floor(random() * org.items));
    const r = await post(`${p.a}/v1/events/ingest`, org.pk, view(user, item));
    if (r.status !== 202) return NaN;
    return untilSeen(p.b, org.pk, user, (items) => items.includes(item));
  });
}

/** Items made inactive through A, gone from B's recently-viewed. */
export function hideFreshness(pair: Pair, org: Org, samples: number, tag: string, seed: number) {
  return sampled(samples, 2, seed, pair, async (i, p) => {
    const user = `hider-${tag}-${i}`;
    const item = `hidden-${tag}-${i}`;
    const upsert = (status: string) => post(`${p.a}/v1/items/upsert`, org.sk, { item_id: item, item_type: "product", status });
    if ((await upsert("active")).status !== 202) return NaN;
    if ((await post(`${p.a}/v1/events/ingest`, org.pk, view(user, item))).status !== 202) return NaN;
    const shown = await untilSeen(p.b, org.pk, user, (items) => items.includes(item));
    if (Number.isNaN(shown)) return NaN;
    if ((await upsert("inactive")).status !== 202) return NaN;
    return untilSeen(p.b, org.pk, user, (items) => !items.includes(item));
  });
}
