/**
 * `npm run bench:text-copy`: what copying stored item texts costs an answer, in one recommender thread: `--items`
 * items upserted into an OrgIndex, then random pages of `--limit` items assembled two ways: the three copies page.ts
 * makes per item (ns per text copied), and the whole `page()` (ns per answer). Fastest and median of `--reps`
 * passes of `--pages` pages: on a shared machine the fastest is the steadier figure. Compare builds by running
 * each build's copy of this file in turn.
 */
import { OrgIndex } from "../../workers/index/orgIndex.js";
import { HEAD_CLOSE, HEAD_OPEN } from "../../workers/index/itemText.js";
import { page } from "../../workers/strategies/page.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import { toRankRequest, type RecommendBody } from "../../src/recommend/schema.js";
import { readFlags, WHOLE } from "../kit/flags.js";
import { median } from "../kit/table.js";

const flags = readFlags({ items: {}, limit: {}, pages: {}, reps: {} });
const ITEMS = flags.number("items", 100_000, WHOLE);
const LIMIT = flags.number("limit", 20, WHOLE);
const PAGES = flags.number("pages", 2000, WHOLE);
const REPS = flags.number("reps", 41, WHOLE);

const index = new OrgIndex(1);
const random = seededRandom(35);
for (let i = 0; i < ITEMS; i++) {
  const attributes = { topic: `topic-${i % 200}`, brand: `brand-${Math.floor(random() * 500)}`, price: Math.round(random() * 10_000) / 100 };
  index.upsertItem(`item-${i}`, "product", "active", attributes, 1_700_000_000);
}
const texts = index.catalog.rendered;
let textBytes = 0;
for (let i = 0; i < ITEMS; i++) textBytes += texts.length(i);

const picks = new Uint32Array(PAGES * LIMIT);
for (let k = 0; k < picks.length; k++) picks[k] = Math.floor(random() * ITEMS);
const scores = new Float64Array(LIMIT).map((_, k) => 1 / (k + 1));
const req = toRankRequest(1, { strategy: "popular", limit: LIMIT, page: 1 } as RecommendBody);

/** Nanoseconds per text copied: each item's head, metadata part and id, as page() copies them. */
function copyTexts(): number {
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let p = 0; p < PAGES; p++) {
    const out = texts.store.writer.reset();
    for (let k = p * LIMIT; k < (p + 1) * LIMIT; k++) {
      const item = picks[k]!;
      const head = texts.mark(item);
      texts.writeTo(out, item, 0, head);
      texts.writeTo(out, item, head);
      texts.writeTo(out, item, HEAD_OPEN.length, head - HEAD_CLOSE.length);
    }
    sink += out.length;
  }
  const ns = Number(process.hrtime.bigint() - started);
  if (sink === 0) throw new Error("nothing was copied");
  return ns / (PAGES * LIMIT * 3);
}

/** Nanoseconds per answer: the whole page, rendered and copied out. */
function renderPages(): number {
  const items = new Uint32Array(LIMIT);
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let p = 0; p < PAGES; p++) {
    items.set(picks.subarray(p * LIMIT, (p + 1) * LIMIT));
    sink += page(index, req, "global", { items, scores, reasons: "popular" }).results.length;
  }
  const ns = Number(process.hrtime.bigint() - started);
  if (sink === 0) throw new Error("nothing was rendered");
  return ns / PAGES;
}

copyTexts();
renderPages();
const copies: number[] = [];
const pages: number[] = [];
for (let r = 0; r < REPS; r++) {
  copies.push(copyTexts());
  pages.push(renderPages());
}
console.log(
  `${ITEMS} items (${Math.round(textBytes / ITEMS)} bytes of text each), pages of ${LIMIT}: ` +
    `${Math.min(...copies).toFixed(1)} ns per text copied (median ${median(copies).toFixed(1)}), ` +
    `${Math.round(Math.min(...pages))} ns per answer (median ${Math.round(median(pages))})`,
);
