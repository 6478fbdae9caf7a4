/** What the client needs of Web Crypto: browsers and Node 19+ have it as `globalThis.crypto`; Node 18 passes `node:crypto`'s webcrypto. */
export interface RandomSource {
  getRandomValues<T extends Uint8Array>(array: T): T;
  randomUUID?(): string;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A random (version 4) UUID: the `event_id` that makes a resent event count once. */
export function uuid(random: RandomSource): string {
  if (random.randomUUID) return random.randomUUID();
  const b = random.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => HEX[x]);
  return `${h.slice(0, 4).join("")}-${h.slice(4, 6).join("")}-${h.slice(6, 8).join("")}-${h.slice(8, 10).join("")}-${h.slice(10).join("")}`;
}

export function platformRandom(): RandomSource {
  const c = (globalThis as { crypto?: RandomSource }).crypto;
  if (!c?.getRandomValues) throw new Error("no Web Crypto here: on Node 18 import recommendation-service/client, whose Node entry supplies it");
  return c;
}
