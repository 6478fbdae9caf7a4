import type { RankRequest } from "../../src/wire/rank.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { Eligible } from "./eligibility.js";

/** What a strategy gets: the organisation's index, the request, and the resolved user and context item. */
export interface RankContext {
  index: OrgIndex;
  req: RankRequest;
  /** Interned user (after identity aliases), or -1. */
  user: number;
  /** Interned context item, or -1. */
  context: number;
  eligible: Eligible;
  /**
   * How many ranked items the page needs: everything before it, the page, and one more for `has_next`; with
   * `diversity` or `max_per`, also the candidates past them the re-ranking reaches (diversify.ts).
   */
  need: number;
  /**
   * How many ranked items to ask for: `need`, or more when rules re-rank (RULES_DEPTH). A strategy whose
   * ranking is kept in memory to a fixed depth (personalized's lists) may give fewer, never fewer than `need`.
   */
  want: number;
  nowS: number;
  /** The request's `candidates` the catalog knows, interned: the only items it may return (undefined: any). */
  listed?: readonly number[];
}

/** Best first; `reasons` per item, or one reason for all. */
export interface Ranking {
  items: ArrayLike<number>;
  scores: ArrayLike<number>;
  reasons: string[] | string;
}

/** Returns undefined when it has no signal for this request (the caller falls back to `popular`). */
export type StrategyFn = (ctx: RankContext) => Ranking | undefined;
