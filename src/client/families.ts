import type { Event } from "../ingest/schemas.js";

type Family = Event["event_family"];

/** CONTRACT 4's known event names by family, so `track({ event_name: "purchase" })` needs no family. */
const FAMILY_OF: Readonly<Record<string, Family>> = {
  impression: "exposure",
  list_view: "exposure",
  purchase: "conversion",
  subscribe: "conversion",
  checkout: "conversion",
  play_complete: "conversion",
  identify: "system",
  session_start: "system",
};

/** The family of a known event name; any other name (view, click, like, a name of your own) is `engagement`. */
export function familyOf(eventName: string): Family {
  return FAMILY_OF[eventName] ?? "engagement";
}
