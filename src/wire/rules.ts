import type { FilterValue } from "./rank.js";
import type { Strategy } from "./strategies.js";

/** What a rule does (README, Rules). */
export const RULE_ACTIONS = ["block", "boost", "bury", "pin", "promote"] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/**
 * An enabled rule as the recommender threads get it (disabled ones are not sent): plain data, no zod there.
 * `items` holds the recommend filter grammar, `item_type` and `item_id` included.
 */
export interface RuleWire {
  name: string;
  action: RuleAction;
  items: Record<string, FilterValue>;
  scenarios: string[] | null;
  strategies: Strategy[] | null;
  factor: number | null;
  position: number | null;
  share: number | null;
  /** Seconds since the epoch; null: no bound. */
  startsS: number | null;
  endsS: number | null;
}

/** An organisation's enabled rules as of `version` (a value of the sequence rule_versions, migration 021). */
export interface RuleSet {
  org: number;
  version: number;
  rules: RuleWire[];
}

/** NOTIFY channel of rule changes (payload "org origin"), for the other processes' threads. */
export const RULES_CHANNEL = "recsvc_rules";
