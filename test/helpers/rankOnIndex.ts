import { toRankRequest } from "../../src/recommend/schema.js";
import { validateRecommend } from "../../src/recommend/validate.js";
import type { OrgIndex } from "../../workers/index/orgIndex.js";
import { rank } from "../../workers/strategies/rank.js";

export interface Ranked {
  item_id: string;
  score: number;
  reason: string;
}

/** The `results` a recommend body gets from an index ranked in this thread (no server), at time `nowS`. */
export function rankOnIndex(index: OrgIndex, body: Record<string, unknown>, nowS = 0): Ranked[] {
  const r = rank(index, toRankRequest(index.org, validateRecommend(body)), nowS);
  return JSON.parse(Buffer.from(r.results).toString("utf8")) as Ranked[];
}

/** The same request ranked with the model's neighbour lists and without them (each call searching the vectors). */
export function withAndWithoutLists(index: OrgIndex, body: Record<string, unknown>): { listed: Ranked[]; searched: Ranked[] } {
  const model = index.model!;
  const table = model.neighbours;
  const listed = rankOnIndex(index, body);
  model.neighbours = undefined;
  try {
    return { listed, searched: rankOnIndex(index, body) };
  } finally {
    model.neighbours = table;
  }
}
