import type { RankRequest } from "../../src/wire/rank.js";
import { ensureLength } from "../index/growable.js";
import type { Catalog } from "../index/catalog.js";
import { itemSimilarity } from "./itemSimilarity.js";
import { placesOf } from "./page.js";
import type { RankContext, Ranking } from "./types.js";
import { valueGroups, type ValueGroup } from "./valueGroups.js";

/**
 * Candidates `diversity` weighs for each place: the first this many the caps allow among those not yet placed,
 * three pages' worth, so that a page of 10 chooses among the 30 best left. Bounded below so that small pages
 * still find variety, and above so that a page of 100 compares at most 150 × 100 pairs.
 */
const WINDOW = { perLimit: 3, min: 30, max: 150 } as const;
/**
 * How far past the place being filled `max_per` looks for a candidate its caps allow (five pages' worth): a
 * catalog where one brand holds four items in five still fills pages of 10 capped at 2 of it.
 */
const CAP_REACH = { perLimit: 5, min: 100, max: 500 } as const;
/**
 * Item pairs one request compares at most (each a vector cosine and an attribute Jaccard, well under a
 * microsecond): two full pages of 100 at the widest window. Past it, similarities count as 0, so the deeper
 * places follow relevance and the caps alone; pairs are compared place by place, so every page before the
 * budget runs out is the same whichever page is asked for.
 */
export const PAIRS_MAX = 50_000;
/**
 * Merge steps of attribute similarities one request's re-ranking takes at most: 50,000 pairs of items of a few
 * attributes each fit; items of hundreds of tags (each pair up to 2 × SKETCH_SIZE steps) stop comparing
 * attributes after about 8,000 pairs. Its own budget, not the strategy's, so that what the strategy spent never
 * changes a page.
 */
const COMPARISON_STEPS_MAX = 1_000_000;
const steps = { n: 0, max: COMPARISON_STEPS_MAX };

/** How a ranking is re-ranked for variety (see rerank). */
export interface Variety {
  limit: number;
  /** Places to fill: every page up to the one asked for, and the first of the next (`has_next`). */
  want: number;
  /** 0 to 1: the weight of a candidate's similarity to the page's items against its relevance. */
  diversity: number;
  /** Per `max_per` attribute (in the request's order), at most this many results per value of it on a page. */
  caps: readonly number[];
  /** Candidates reach this many places past the place being filled, and no further. */
  reach: number;
  /** `diversity` weighs the first this many candidates the caps allow. */
  window: number;
  pairsMax: number;
  /**
   * Compare every pair the moment it is counted, in the order counted: for a similarity whose answer depends on
   * the pairs compared before it (a step budget that may run out within the re-ranking). Otherwise a pair is
   * compared only when its candidate could still take the place, and the page is the same.
   */
  eager: boolean;
  /** How alike two of the ranking's items are, 0 to 1. */
  similarity: (a: number, b: number) => number;
  /** The values an item holds under the capped attributes (`caps[g.attribute]` bounds each group g). */
  groups: (item: number) => readonly ValueGroup[];
}

function varied(req: RankRequest): boolean {
  return req.diversity !== undefined || req.maxPer !== undefined;
}

function windowOf(limit: number): number {
  return Math.min(WINDOW.max, Math.max(WINDOW.min, WINDOW.perLimit * limit));
}

function reachOf(req: RankRequest): number {
  const window = windowOf(req.limit);
  if (req.maxPer === undefined) return window;
  return Math.max(window, Math.min(CAP_REACH.max, Math.max(CAP_REACH.min, CAP_REACH.perLimit * req.limit)));
}

/**
 * How many ranked items the strategy is asked for: the page, those before it and one more, and, with
 * `diversity` or `max_per`, the candidates the re-ranking reaches past them. Nothing more without either.
 */
export function rankingDepth(req: RankRequest): number {
  return varied(req) ? placesOf(req) + reachOf(req) : placesOf(req);
}

/**
 * The ranking re-ranked for the request's `diversity` and `max_per` (rerank), or the ranking itself when it
 * names neither. Similarities by item vectors and attributes (itemSimilarity.ts); `max_per`'s values from the
 * items' stored attributes (valueGroups.ts).
 */
export function diversified(ctx: RankContext, ranking: Ranking | undefined): Ranking | undefined {
  const { req, index } = ctx;
  if (!ranking || !varied(req)) return ranking;
  const { catalog, model } = index;
  const names = req.maxPer ? Object.keys(req.maxPer) : [];
  steps.n = 0;
  const want = placesOf(req);
  const reach = reachOf(req);
  return rerank(ranking, {
    limit: req.limit,
    want,
    diversity: req.diversity ?? 0,
    caps: names.map((n) => req.maxPer![n]!),
    reach,
    window: windowOf(req.limit),
    pairsMax: PAIRS_MAX,
    eager: !stepsSuffice(catalog, ranking, req.limit, want, reach),
    similarity: (a, b) => itemSimilarity(catalog, model, a, b, steps),
    groups: (item) => valueGroups(catalog, item, names),
  });
}

/**
 * Whether every pair the re-ranking may compare fits COMPARISON_STEPS_MAX, so that no attribute similarity is
 * cut to 0 whichever pairs are compared first. A page compares each of its candidates (at most reach + limit − 1:
 * the places up to its last plus the reach, less the items placed before it) with at most limit − 1 items
 * placed on it; a pair takes at most the two items' sketch lengths in merge steps.
 */
function stepsSuffice(catalog: Catalog, ranking: Ranking, limit: number, want: number, reach: number): boolean {
  const pages = Math.ceil(want / limit);
  const pairs = Math.min(PAIRS_MAX, pages * (reach + limit - 1) * (limit - 1));
  const end = Math.min(ranking.items.length, want - 1 + reach);
  let longest = 0;
  for (let k = 0; k < end; k++) longest = Math.max(longest, catalog.tokens.sketchLength(ranking.items[k]!));
  return pairs * 2 * longest <= COMPARISON_STEPS_MAX;
}

/** Per ranking position, for the request being re-ranked (one thread ranks one request at a time). */
let placed = new Uint8Array(0);
/**
 * The greatest similarity to the page's placed items found so far, over the first `folded[k]` of them, on page
 * `pageOf[k]`; the first `due[k]` of them are the pairs counted against pairsMax (compared, or to compare when
 * the candidate could take a place).
 */
let nearest = new Float64Array(0);
let folded = new Int32Array(0);
let due = new Int32Array(0);
let pageOf = new Int32Array(0);
let groupsOf: (readonly ValueGroup[] | undefined)[] = [];
let window = new Int32Array(0);

function room(n: number, w: number): void {
  if (placed.length < n) {
    placed = ensureLength(placed, n);
    nearest = ensureLength(nearest, n);
    folded = ensureLength(folded, n);
    due = ensureLength(due, n);
    pageOf = ensureLength(pageOf, n);
  }
  placed.fill(0, 0, n);
  pageOf.fill(-1, 0, n);
  groupsOf = new Array<readonly ValueGroup[] | undefined>(n);
  if (window.length < w) window = ensureLength(window, w);
}

/**
 * Fills the places one by one, page by page. A place goes to a candidate among the ranking's items not yet
 * placed, at most `reach` places past it, that the caps allow on this page (no value of a capped attribute
 * already there as often as its cap; items without the attribute are not limited). With `diversity` d, it is
 * the best of the first `window` of them by (1 − d) × relevance − d × its greatest similarity to the page's
 * items (maximal marginal relevance; relevance is 1 for the first of them, 1/window less for each next one, and
 * ties go to the higher ranked); with 0, the first of them. When no candidate within reach is allowed, the results end there:
 * a short last page, never a cap exceeded. Each item keeps its score and reason.
 *
 * A place's choice depends only on the ranking's first (place + reach) items, so page 2 asked alone places
 * page 1 as page 1 asked alone did, and continues it without repeating an item.
 */
export function rerank(ranking: Ranking, v: Variety): Ranking {
  const n = ranking.items.length;
  room(n, v.window);
  const { items, scores } = ranking;
  const reasonOf = typeof ranking.reasons === "string" ? undefined : ranking.reasons;
  const out: number[] = [];
  const outScores: number[] = [];
  const outReasons: string[] = [];
  const onPage: number[] = [];
  const counts = new Map<string, number>();
  const capped = v.caps.length > 0;
  const d = v.diversity;
  let pairs = 0;
  let front = 0;
  // A page weighs at most reach + limit − 1 candidates (the places up to its last plus the reach, less the
  // items placed before it), each against at most limit − 1 items placed on it.
  const counting = v.eager || Math.ceil(v.want / v.limit) * (v.reach + v.limit - 1) * (v.limit - 1) > v.pairsMax;
  for (let place = 0; place < v.want; place++) {
    const page = Math.floor(place / v.limit);
    if (place % v.limit === 0) {
      counts.clear();
      onPage.length = 0;
    }
    const end = Math.min(n, place + v.reach);
    if (d > 0 && !counting) {
      const chosen = choose(page, end);
      if (chosen < 0) break;
      take(chosen);
      continue;
    }
    let size = 0;
    for (let k = front; k < end && size < v.window; k++) {
      if (placed[k] === 1 || (capped && !allowed(k))) continue;
      window[size++] = k;
      if (d === 0) break;
    }
    if (size === 0) break;
    let best = window[0]!;
    if (d > 0 && size > 1) {
      // Pairs are counted against pairsMax in the window's order, whichever are compared.
      for (let w = 0; w < size; w++) {
        const k = window[w]!;
        if (pageOf[k] !== page) {
          pageOf[k] = page;
          nearest[k] = 0;
          folded[k] = 0;
          due[k] = 0;
        }
        const counted = Math.max(0, Math.min(onPage.length - due[k]!, v.pairsMax - pairs));
        due[k]! += counted;
        pairs += counted;
        if (v.eager) fold(k, -Infinity, Number.NaN);
      }
      let bestValue = -Infinity;
      for (let w = 0; w < size; w++) {
        // By place, not by score: a filled ranking's scores come from several strategies, which do not compare.
        const relevance = 1 - w / v.window;
        const most = (1 - d) * relevance;
        // A value is at most its relevance part (similarities are ≥ 0), which falls with w: no later one wins.
        if (!(most > bestValue)) break;
        const k = window[w]!;
        // nearest only grows as pairs are folded in: a candidate stops being compared once it cannot win.
        const value = fold(k, bestValue, most);
        if (value > bestValue) {
          bestValue = value;
          best = k;
        }
      }
    }
    take(best);
  }
  return { items: out, scores: outScores, reasons: reasonOf ? outReasons : (ranking.reasons as string) };

  function take(best: number): void {
    placed[best] = 1;
    onPage.push(best);
    if (capped) for (const g of groupsOf[best]!) counts.set(g.key, (counts.get(g.key) ?? 0) + 1);
    out.push(items[best]!);
    outScores.push(scores[best]!);
    if (reasonOf) outReasons.push(reasonOf[best]!);
    while (front < n && placed[front] === 1) front++;
  }

  /**
   * The place's choice when pairsMax cannot run out: each candidate weighs every item on the page, and the
   * candidates are found one by one, only as long as the next could still win (−1: none within reach).
   */
  function choose(page: number, end: number): number {
    let first = -1;
    let best = -1;
    let bestValue = -Infinity;
    let w = 0;
    for (let k = front; k < end && w < v.window; k++) {
      if (placed[k] === 1 || (capped && !allowed(k))) continue;
      // A lone candidate takes the place unweighed.
      if (w === 0) {
        first = k;
        w++;
        continue;
      }
      if (best < 0) {
        best = first;
        bestValue = weigh(first, page, 1 - d, -Infinity);
      }
      const most = (1 - d) * (1 - w / v.window);
      if (!(most > bestValue)) break;
      const value = weigh(k, page, most, bestValue);
      if (value > bestValue) {
        bestValue = value;
        best = k;
      }
      w++;
    }
    return best < 0 ? first : best;
  }

  /** Candidate k's value against every item on the page, or a value no more than `beat` once it cannot win. */
  function weigh(k: number, page: number, most: number, beat: number): number {
    if (pageOf[k] !== page) {
      pageOf[k] = page;
      nearest[k] = 0;
      folded[k] = 0;
    }
    due[k] = onPage.length;
    return fold(k, beat, most);
  }

  /**
   * Folds candidate k's counted pairs into its nearest until its value, most − d × nearest, is no more than
   * `beat` (a NaN `most`: all of them); returns that value.
   */
  function fold(k: number, beat: number, most: number): number {
    let value = most - d * nearest[k]!;
    while (folded[k]! < due[k]! && (value > beat || most !== most)) {
      nearest[k] = Math.max(nearest[k]!, v.similarity(items[k]!, items[onPage[folded[k]!]!]!));
      folded[k]!++;
      value = most - d * nearest[k]!;
    }
    return value;
  }

  function allowed(k: number): boolean {
    let groups = groupsOf[k];
    if (groups === undefined) groupsOf[k] = groups = v.groups(ranking.items[k]!);
    for (const g of groups) if ((counts.get(g.key) ?? 0) >= v.caps[g.attribute]!) return false;
    return true;
  }
}
