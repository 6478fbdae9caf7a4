/**
 * (organisation, event id) pairs seen in one batch, the ids as 128-bit numbers (see parseUuid): an
 * open-addressing table reused from batch to batch (a stamp per slot says which batch filled it, so nothing is
 * cleared between batches).
 */
export class EventIdSet {
  private keys = new Int32Array(0);
  private stamps = new Uint32Array(0);
  private mask = 0;
  private stamp = 0;

  /** Empties the set and makes room for `n` ids. */
  reset(n: number): void {
    const slots = Math.max(64, 2 ** Math.ceil(Math.log2(2 * n)));
    if (slots > this.stamps.length) {
      this.keys = new Int32Array(slots * 5);
      this.stamps = new Uint32Array(slots);
      this.stamp = 0;
    }
    this.mask = slots - 1;
    this.stamp = (this.stamp + 1) >>> 0;
    if (this.stamp === 0) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  /** Adds a uuid (parseUuid's words) of `org`; false when it is already in the set. */
  add(org: number, words: Int32Array): boolean {
    const w0 = words[0]!;
    const w1 = words[1]!;
    const w2 = words[2]!;
    const w3 = words[3]!;
    const { keys, stamps, mask } = this;
    for (let slot = (w3 ^ Math.imul(org, 0x9e3779b1)) & mask; ; slot = (slot + 1) & mask) {
      if (stamps[slot] !== this.stamp) {
        stamps[slot] = this.stamp;
        const k = slot * 5;
        keys[k] = org;
        keys[k + 1] = w0;
        keys[k + 2] = w1;
        keys[k + 3] = w2;
        keys[k + 4] = w3;
        return true;
      }
      const k = slot * 5;
      if (keys[k] === org && keys[k + 1] === w0 && keys[k + 2] === w1 && keys[k + 3] === w2 && keys[k + 4] === w3) return false;
    }
  }
}

/** The uuid whose 36 bytes of text start at `bytes[at]`, as four 32-bit words into `words`; false when it is not a uuid. */
export function parseUuid(bytes: Uint8Array, at: number, words: Int32Array): boolean {
  for (const d of DASHES) if (bytes[at + d] !== 0x2d) return false;
  for (let word = 0; word < 4; word++) {
    let w = 0;
    for (let i = word * 8; i < word * 8 + 8; i++) {
      const nibble = NIBBLE[bytes[at + DIGIT_AT[i]!]!]!;
      if (nibble < 0) return false;
      w = (w << 4) | nibble;
    }
    words[word] = w;
  }
  return true;
}

/** The uuid's hex digits in text order, skipping its dashes (at 8, 13, 18 and 23). */
const DIGIT_AT = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
const DASHES = [8, 13, 18, 23];

/** Nibble values of hex digits (either case); -1 for every other byte. */
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[0x30 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[0x41 + i] = NIBBLE[0x61 + i] = 10 + i;
