import { createHash, randomInt } from "node:crypto";

export const PUBLISHABLE_PREFIX = "svc_pk_";
export const SECRET_PREFIX = "svc_sk_";
export type KeyType = "publishable" | "secret";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 40;

function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function newKeyPair(): { publishable: string; secret: string } {
  return { publishable: PUBLISHABLE_PREFIX + randomBase62(RANDOM_CHARS), secret: SECRET_PREFIX + randomBase62(RANDOM_CHARS) };
}

/** Keys are looked up by SHA-256 digest: the secret itself is never stored. */
export function keyDigest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

export function keyTypeOf(key: string): KeyType | undefined {
  if (key.startsWith(PUBLISHABLE_PREFIX)) return "publishable";
  if (key.startsWith(SECRET_PREFIX)) return "secret";
  return undefined;
}

/** `svc_sk_…a1b2`: the prefix and the last four characters. */
export function maskKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}
