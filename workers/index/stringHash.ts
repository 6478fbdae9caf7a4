/**
 * Hashes of attribute text, so that the index keeps numbers rather than strings (a string costs 30–50 bytes of
 * heap before its characters, so a catalog of distinct tag values would cost many times its JSON). Murmur3's mixing
 * steps over UTF-16 code units; any two texts that differ may share a hash, which callers must tolerate.
 */

/** Feeds one 32-bit unit into the running hash `h`. */
function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Murmur3's finaliser: every input bit moves every output bit. */
function finish(h: number, n: number): number {
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Feeds `text`'s length, then its code units: ("ab", "c") and ("a", "bc") feed different sequences. */
function feed(h: number, text: string): number {
  h = mix(h, text.length);
  for (let i = 0; i < text.length; i++) h = mix(h, text.charCodeAt(i));
  return h;
}

/** An unsigned 32-bit hash of the pair (name, value), under `seed`. */
export function hashPair32(seed: number, name: string, value: string): number {
  return finish(feed(feed(seed, name), value), name.length + value.length);
}

const TWO_32 = 2 ** 32;
const HIGH_BITS = 0xfffff;

/**
 * A 52-bit hash of (kind, name, value) as a float (exact in a double): distinct pairs share one with
 * probability 2^-52, which is what lets filters compare hashes instead of the values.
 */
export function hashPair52(kind: number, name: string, value: string): number {
  const low = hashPair32(0x9747b28c ^ kind, name, value);
  const high = hashPair32(0x2f0b3c1d ^ kind, name, value) & HIGH_BITS;
  return high * TWO_32 + low;
}

/** A 52-bit hash of a name alone. */
export function hashName52(name: string): number {
  return hashPair52(0x51, name, "");
}
