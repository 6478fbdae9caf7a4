/** Random ingestion events over a fixed population of users and items, every event_id fresh. */
import { randomUUID } from "node:crypto";

const USERS = 20_000;
const ITEMS = 5_000;

const userIds = Array.from({ length: USERS }, (_, i) => `user-${i}`);
const itemIds = Array.from({ length: ITEMS }, (_, i) => `item-${i}`);
const pick = (a: string[]) => a[(Math.random() * a.length) | 0];

export const randomUserId = (): string => pick(userIds);
export const randomItemId = (): string => pick(itemIds);

function eventJson(): string {
  return `{"user_id":"${randomUserId()}","event_family":"engagement","event_name":"view","item_id":"${randomItemId()}","event_id":"${randomUUID()}"}`;
}

/** One request body: a single event object, or an array of `n` events. */
export function eventsBody(n: number): string {
  if (n === 1) return eventJson();
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++) parts[i] = eventJson();
  return `[${parts.join(",")}]`;
}
