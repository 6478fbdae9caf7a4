import { isIdentifier } from "./plainRecord.js";
import { EVENT_FAMILIES, EVENT_NAME, EventUuid } from "./schemas.js";

const UUID = EventUuid._zod.def.pattern ?? /$^/;
const FAMILIES: ReadonlySet<unknown> = new Set(EVENT_FAMILIES);

/**
 * True only when an event is certainly valid under EventSchema and "plain" (identifiers, family, name, id;
 * no context or timestamp), a fraction of what zod costs per event on the front thread. It never
 * says "invalid": anything it is unsure of goes to the schema, which stays the statement of the rules and
 * the source of every error message.
 */
export function isPlainValidEvent(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  let hasPrevious = false;
  let name: unknown;
  let seen = 0;
  for (const key in v) {
    const value = (v as Record<string, unknown>)[key];
    switch (key) {
      case "user_id":
      case "recommendation_id":
        if (!isIdentifier(value)) return false;
        break;
      case "previous_user_id":
        if (!isIdentifier(value)) return false;
        hasPrevious = true;
        break;
      case "item_id":
        if (value !== null && !isIdentifier(value)) return false;
        break;
      case "event_family":
        if (!FAMILIES.has(value)) return false;
        break;
      case "event_name":
        if (typeof value !== "string" || !EVENT_NAME.test(value)) return false;
        name = value;
        break;
      case "event_id":
        if (typeof value !== "string" || !UUID.test(value)) return false;
        break;
      default:
        return false; // context, timestamp, unknown keys: the schema decides
    }
    seen++;
  }
  // for…in also walks inherited keys (JSON.parse makes none); required fields must be own properties.
  if (seen !== Object.keys(v).length) return false;
  if (!Object.hasOwn(v, "user_id") || !Object.hasOwn(v, "event_family") || name === undefined) return false;
  return name !== "identify" || hasPrevious;
}
