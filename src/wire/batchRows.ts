/**
 * Records travel to the writer threads as positional tuples (msgpackr packs these much smaller and faster
 * than objects). Column order matches the staging tables in workers/writer/merge.ts.
 */
export type EventRow = [
  org: number,
  eventId: string,
  userId: string,
  itemId: string | null,
  family: string,
  name: string,
  weight: number,
  previousUserId: string | null,
  recommendationId: string | null,
  context: unknown,
  occurredAt: string,
];
/** EventRow's positions, for the reader of a packed batch's events in place (packedEvents.ts). */
export const EVENT_COLUMN = {
  org: 0,
  eventId: 1,
  userId: 2,
  itemId: 3,
  family: 4,
  name: 5,
  weight: 6,
  previousUserId: 7,
  recommendationId: 8,
  context: 9,
  occurredAt: 10,
} as const;
export const EVENT_COLUMNS = 11;
export type ItemRow = [org: number, itemId: string, itemType: string, status: string, attributes: unknown, createdAt: string | null];
export type UserRow = [org: number, userId: string, status: string, attributes: unknown, createdAt: string];

export interface BatchPayload {
  events: EventRow[];
  items: ItemRow[];
  users: UserRow[];
}
