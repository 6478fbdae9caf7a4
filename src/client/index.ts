/** recommendation-service/client: the browser and universal entry (no Node-only API). */
export { RecommendationClient } from "./client.js";
export { RecommendationServiceError, isServiceError, type ClientErrorCode } from "./errors.js";
export type { ClientOptions } from "./options.js";
export type { KeyValueStore } from "./storage.js";
export type { RandomSource } from "./ids.js";
export type { Backoff } from "./retry.js";
export type { Event, Item, User, TrackInput, TrackedEvent, RecommendRequest, Recommendations, RecommendedItem } from "./types.js";
