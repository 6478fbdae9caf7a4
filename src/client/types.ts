import type { z } from "zod";
import type { Event, Item, User } from "../ingest/schemas.js";
import type { RecommendAnswer, RecommendResultSchema } from "../recommend/answer.js";
import type { RecommendSchema } from "../recommend/schema.js";

export type { Event, Item, User };

/** An event as queued and sent: the client gives every one its event_id, so a resent event is stored once. */
export type TrackedEvent = Event & { event_id: string };

/**
 * What `track()` takes: an event whose `user_id` defaults to the current identity, whose `event_family` defaults
 * from the event name (CONTRACT 4's table; `engagement` for other names), and whose `event_id` and `timestamp`
 * are set on the client.
 */
export type TrackInput = Omit<Event, "user_id" | "event_family"> & Partial<Pick<Event, "user_id" | "event_family">>;

/** The recommend request as the service validates it; `user_id` defaults to the current identity for the user strategies. */
export type RecommendRequest = z.input<typeof RecommendSchema>;

/** One ranked item of an answer, carrying the answer's recommendation_id for the events it leads to. */
export type RecommendedItem = z.infer<typeof RecommendResultSchema> & { recommendation_id: string };

/** The `data` of a recommend answer (spec 2.4), its results carrying their recommendation_id. */
export type Recommendations = Omit<RecommendAnswer, "results"> & { results: RecommendedItem[] };
