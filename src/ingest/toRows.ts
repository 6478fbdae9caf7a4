import { randomUUID } from "node:crypto";
import type { EventRow, ItemRow, UserRow } from "../wire/batchRows.js";
import { eventWeight, type Event, type Item, type User } from "./schemas.js";

/** Validated records as the tuples a batch carries (src/wire/batchRows.ts). */
export function eventRow(org: number, e: Event, receivedAt: string): EventRow {
  return [
    org,
    e.event_id ?? randomUUID(),
    e.user_id,
    e.item_id ?? null,
    e.event_family,
    e.event_name,
    eventWeight(e.event_name),
    e.previous_user_id ?? null,
    e.recommendation_id ?? null,
    e.context ?? null,
    e.timestamp ?? receivedAt,
  ];
}

export function itemRow(org: number, i: Item): ItemRow {
  return [org, i.item_id, i.item_type, i.status, i.attributes ?? {}, i.created_at ?? null];
}

export function userRow(org: number, u: User): UserRow {
  return [org, u.user_id, u.status, u.attributes ?? {}, u.created_at];
}
