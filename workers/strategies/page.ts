import type { Mode, RankRequest, RankResult } from "../../src/wire/rank.js";
import type { ByteWriter } from "../../src/wire/byteWriter.js";
import { HEAD_CLOSE, HEAD_OPEN } from "../index/itemText.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { Ranking } from "./types.js";

/** The places up to the request's page, and the next one (`has_next`): what a ranking must hold for the page. */
export function placesOf(req: RankRequest): number {
  return req.page * req.limit + 1;
}

/**
 * The requested page, rendered as the response's `results` JSON in UTF-8 (the front thread only splices it in).
 * Each item's text around its score and reason, `{"item_id":…,"score":` and `,"metadata":{…}}`, is rendered
 * at its upsert and kept in the catalog (see itemText.ts); a page copies those bytes (see TextStore), the ids
 * array from the heads. Answers that name `fields` cut those members out of the stored text each time.
 * The page's bytes are lent: they stay valid until this thread renders its next page, and whoever keeps them
 * copies them (the shard copies each into its answer batch, the one copy on the way out of this thread).
 */
export function page(index: OrgIndex, req: RankRequest, mode: Mode, ranking: Ranking | undefined): RankResult {
  if (!ranking) return { mode, count: 0, items: EMPTY, results: EMPTY, hasNext: false };
  const { catalog } = index;
  const texts = catalog.rendered;
  const from = (req.page - 1) * req.limit;
  const to = Math.min(from + req.limit, ranking.items.length);
  // Rendering a text may move the others, so every one is in place before the first copy.
  for (let k = from; k < to; k++) catalog.renderBare(ranking.items[k]!);
  const store = texts.store;
  const shared = typeof ranking.reasons === "string" ? `,"reason":${JSON.stringify(ranking.reasons)}` : undefined;
  const sharedBytes = shared === undefined ? -1 : store.scratch(shared);
  const out = store.writer.reset().text("[");
  // Reasons of their own run alike (a strategy's, then a fallback's): each run's text is made once.
  let reason: string | undefined;
  let reasonText = "";
  for (let k = from; k < to; k++) {
    const item = ranking.items[k]!;
    if (k > from) out.text(",");
    const head = texts.mark(item);
    texts.writeTo(out, item, 0, head);
    writeScore(out, ranking.scores[k]!);
    if (sharedBytes >= 0) out.stored(store.scratchAt, sharedBytes);
    else if (shared !== undefined) out.text(shared);
    else {
      if (ranking.reasons[k] !== reason || k === from) {
        reason = ranking.reasons[k];
        reasonText = `,"reason":${JSON.stringify(reason)}`;
      }
      out.text(reasonText);
    }
    if (req.fields) out.text(`,"metadata":${catalog.metadataJson(item, req.fields)}}`);
    else texts.writeTo(out, item, head);
  }
  out.text("]");
  // The ids follow in the same buffer: one copy carries both arrays.
  const resultsEnd = out.length;
  out.text("[");
  for (let k = from; k < to; k++) {
    const item = ranking.items[k]!;
    if (k > from) out.text(",");
    texts.writeTo(out, item, HEAD_OPEN.length, texts.mark(item) - HEAD_CLOSE.length);
  }
  const both = out.text("]").lent();
  return {
    mode,
    count: Math.max(0, to - from),
    items: both.subarray(resultsEnd),
    results: both.subarray(0, resultsEnd),
    hasNext: ranking.items.length > from + req.limit,
  };
}

const EMPTY = new TextEncoder().encode("[]");

const MICROS = 1_000_000;
/** The least score an answer shows as more than 0 (scores are written to six decimals). */
export const SHOWN_SCORE_MIN = 0.5 / MICROS;

/**
 * Writes JSON.stringify(score rounded to 6 decimals) from integers: a page holds twenty scores, and turning a
 * fraction into its shortest decimal text (then into bytes) costs several times more than this.
 */
export function writeScore(w: ByteWriter, score: number): ByteWriter {
  const n = Math.round(score * MICROS);
  if (!(n >= -0x7fffffff && n <= 0x7fffffff)) return w.text(JSON.stringify(n / MICROS)); // huge, or not a number
  if (n < 0) w.text("-");
  const abs = n < 0 ? -n : n;
  const whole = (abs / MICROS) | 0;
  let fraction = abs - whole * MICROS;
  w.int(whole);
  if (fraction === 0) return w;
  let digits = 6;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  w.text(".");
  for (let shown = digitCount(fraction); shown < digits; shown++) w.text("0");
  return w.int(fraction);
}

function digitCount(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = (n / 10) | 0;
    d++;
  }
  return d;
}
