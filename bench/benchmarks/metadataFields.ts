/**
 * `npm run bench:fields`: what a page of 100 items costs the recommender thread when the request names `fields`,
 * for items of 999 tag strings (bench:noisy's hostile catalog): the members cut out of the stored text
 * (Catalog.metadataJson) against parsing the whole text and stringifying the kept members. Best of 30 passes.
 */
import { Catalog } from "../../workers/index/catalog.js";

const catalog = new Catalog();
const items: number[] = [];
for (let k = 0; k < 100; k++) {
  const tags = Array.from({ length: 999 }, (_, j) => `tag-${k}-${j}-xxxxxx`);
  items.push(catalog.upsert(`t${k}`, "tag", "active", { tags, brand: "b" }, 0));
}

function parsed(i: number, fields: string[]): string {
  const all = JSON.parse(catalog.metadataJson(i, undefined)) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(all, f)) out[f] = all[f];
  out.item_type = all.item_type;
  return JSON.stringify(out);
}

const cut = (i: number, fields: string[]) => catalog.metadataJson(i, fields);

for (const round of [1, 2]) {
  for (const [name, render] of [
    ["parse and stringify", parsed],
    ["cut from the text", cut],
  ] as const) {
    for (const fields of [["tags"], ["brand"]]) {
      let best = Infinity;
      for (let r = 0; r < 30; r++) {
        const started = performance.now();
        for (const i of items) render(i, fields);
        best = Math.min(best, performance.now() - started);
      }
      console.log(`round ${round}  ${name.padEnd(20)} fields ${JSON.stringify(fields).padEnd(10)} ${best.toFixed(2)} ms a page of 100`);
    }
  }
}
