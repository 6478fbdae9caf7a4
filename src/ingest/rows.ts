import { randomUUID } from "node:crypto";
import { eventWeight, type Event, type Item, type User } from "./schemas.js";

/**
 * Records travel to the writer threads as positional tuples (msgpackr packs these much smaller and faster
 * than objects). Column order matches the staging tables in workers/writer/merge.ts.
 */
export type EventRow = [
  org: number, eventId: string, userId: string, itemId: string | null, family: string, name: string,
  weight: number, previousUserId: string | null, recommendationId: string | null, context: unknown, occurredAt: string,
];
/** EventRow's positions, for readers that walk a packed batch in place (workers/writer/eventsCopy.ts, workers/index/packedEvents.ts). */
export const EVENT_COLUMN = {
  org: 0, eventId: 1, userId: 2, itemId: 3, family: 4, name: 5, weight: 6, previousUserId: 7, recommendationId: 8, context: 9, occurredAt: 10,
} as const;
export const EVENT_COLUMNS = 11;
export type ItemRow = [org: number, itemId: string, itemType: string, status: string, attributes: unknown, createdAt: string | null];
export type UserRow = [org: number, userId: string, status: string, attributes: unknown, createdAt: string];

export interface BatchPayload {
  events: EventRow[];
  items: ItemRow[];
  users: UserRow[];
}

export function eventRow(org: number, e: Event, receivedAt: string): EventRow {
  return [
    org, e.event_id ?? randomUUID(), e.user_id, e.item_id ?? null, e.event_family, e.event_name,
    eventWeight(e.event_name), e.previous_user_id ?? null, e.recommendation_id ?? null, e.context ?? null,
    e.timestamp ?? receivedAt,
  ];
}

export function itemRow(org: number, i: Item): ItemRow {
  return [org, i.item_id, i.item_type, i.status, i.attributes ?? {}, i.created_at ?? null];
}

export function userRow(org: number, u: User): UserRow {
  return [org, u.user_id, u.status, u.attributes ?? {}, u.created_at];
}
