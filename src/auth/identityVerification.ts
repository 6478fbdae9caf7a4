import { createHmac, timingSafeEqual } from "node:crypto";
import { appError } from "../errors.js";

/**
 * Ids the client SDK makes for visitors who have not signed in (`anon-` and a random UUID, src/client/identity.ts).
 * Their history is the visitor's own browsing, held by whoever holds the id: they need no hash.
 */
export const ANONYMOUS_PREFIX = "anon-";

export function isAnonymous(userId: string): boolean {
  return userId.startsWith(ANONYMOUS_PREFIX);
}

/** `user_hash`: hex HMAC-SHA256 of the user id, keyed with the organisation's identity secret (as its text). */
export function userHash(secret: string, userId: string): string {
  return createHmac("sha256", secret).update(userId).digest("hex");
}

const HEX_DIGEST = /^[0-9a-f]{64}$/i;

/**
 * With identity verification on (`secret` not null): a signed-in `userId` must come with its `user_hash`, or the
 * request is 403 unverified_user. Compared in constant time, so an answer's timing tells nothing of the right hash.
 */
export function verifyUser(secret: string | null, userId: string, hash: string | undefined, field = "user_id"): void {
  if (secret === null || isAnonymous(userId)) return;
  if (hash === undefined) {
    throw appError("unverified_user", "hashMissing", { field });
  }
  const expected = Buffer.from(userHash(secret, userId), "hex");
  if (!HEX_DIGEST.test(hash) || !timingSafeEqual(Buffer.from(hash, "hex"), expected)) {
    throw appError("unverified_user", "hashMismatch", { field });
  }
}

/** The fields of an `identify` event that verification reads. */
export interface IdentifyClaim {
  event_name: string;
  user_id: string;
  previous_user_id?: string;
  user_hash?: string;
}

/**
 * With identity verification on, an `identify` proves its user (`user_hash`) and merges only an anonymous id
 * into it: a signed-in id could otherwise be claimed by anyone who knows it. `at` names the event in the error.
 */
export function verifyIdentify(secret: string | null, e: IdentifyClaim, at: string): void {
  if (secret === null || e.event_name !== "identify" || e.previous_user_id === undefined) return;
  verifyUser(secret, e.user_id, e.user_hash, `${at}.user_id`);
  if (!isAnonymous(e.previous_user_id)) {
    throw appError("unverified_user", "mergeNotAnonymous", { at, prefix: ANONYMOUS_PREFIX });
  }
}
