/**
 * Each organisation's data: a small seeded synthetic catalog (bench/kit/synthetic.ts), loaded before the soak
 * so that every user already has a history and the model is trained. Users and items are few on purpose: the
 * recommender keeps each user's last 512 events, so once the soak's traffic has filled those histories the
 * data held in memory stops growing, and what the server's memory does after that is the server's own doing.
 */
import type { SyntheticSpec } from "../../kit/synthetic.js";

export const USERS = 500;
export const ITEMS = 5_000;
/** 300 events per user before the soak: the live traffic fills the rest of the 512 within a few minutes. */
export const PRELOAD_EVENTS = 150_000;

export function orgSpec(org: number): SyntheticSpec {
  return { users: USERS, items: ITEMS, events: PRELOAD_EVENTS, topics: 100, days: 30, seed: 20260301 + org };
}
