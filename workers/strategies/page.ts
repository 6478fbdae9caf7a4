import type { Mode, RankRequest, RankResult } from "../../src/recommend/schema.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { Ranking } from "./types.js";

/** The requested page, rendered as the response's `results` JSON (the front thread only splices it in). */
export function page(index: OrgIndex, req: RankRequest, mode: Mode, ranking: Ranking | undefined): RankResult {
  if (!ranking) return { mode, itemIds: [], resultsJson: "[]", hasNext: false };
  const { catalog } = index;
  const from = (req.page - 1) * req.limit;
  const to = Math.min(from + req.limit, ranking.items.length);
  const itemIds: string[] = [];
  const shared = typeof ranking.reasons === "string" ? `,"reason":${JSON.stringify(ranking.reasons)},"metadata":` : undefined;
  let json = "[";
  for (let k = from; k < to; k++) {
    const item = ranking.items[k]!;
    const id = catalog.ids.name(item);
    itemIds.push(id);
    if (k > from) json += ",";
    json +=
      `{"item_id":${JSON.stringify(id)},"score":${scoreJson(ranking.scores[k]!)}` +
      (shared ?? `,"reason":${JSON.stringify(ranking.reasons[k])},"metadata":`) +
      catalog.metadataJson(item, req.fields) +
      "}";
  }
  return { mode, itemIds, resultsJson: json + "]", hasNext: ranking.items.length > from + req.limit };
}

const MICROS = 1_000_000;

/**
 * JSON.stringify(score rounded to 6 decimals), built from integers: a page holds twenty scores, and turning a
 * fraction into its shortest decimal text costs several times more than this.
 */
export function scoreJson(score: number): string {
  const n = Math.round(score * MICROS);
  if (!(n >= -0x7fffffff && n <= 0x7fffffff)) return JSON.stringify(n / MICROS); // huge, or not a number
  if (n === 0) return "0";
  const sign = n < 0 ? "-" : "";
  const abs = n < 0 ? -n : n;
  const whole = (abs / MICROS) | 0;
  let fraction = abs - whole * MICROS;
  if (fraction === 0) return sign + whole;
  let digits = 6;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  const text = String(fraction);
  return `${sign}${whole}.${"00000".slice(0, digits - text.length)}${text}`;
}
