/**
 * A small seeded generator (splitmix32), so that a run is replayed by its seed: every case draws from its own
 * stream, derived from the run's seed and the case's number, and so does not depend on the order cases finish.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The generator of case `index` of the run seeded `seed`. */
  static forCase(seed: number, index: number): Prng {
    return new Prng(mix(mix(seed) ^ Math.imul(index + 1, 0x9e3779b9)));
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    return mix(this.state);
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next() / 0x1_0000_0000;
  }

  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }

  /** One of `choices`, each drawn in proportion to its weight. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    const total = choices.reduce((s, [, w]) => s + w, 0);
    let r = this.float() * total;
    for (const [value, w] of choices) {
      r -= w;
      if (r < 0) return value;
    }
    return choices[choices.length - 1][0];
  }

  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.next() & 0xff;
    return b;
  }

  /** A version-4-shaped UUID drawn from this stream (replayable, unlike randomUUID). */
  uuid(): string {
    const h = this.bytes(16);
    h[6] = (h[6] & 0x0f) | 0x40;
    h[8] = (h[8] & 0x3f) | 0x80;
    const x = h.toString("hex");
    return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
  }

  /** Letters and digits. */
  word(min = 1, max = 12): string {
    const chars = "abcdefghijklmnopqrstuvwxyz0123456789";
    let s = "";
    for (let i = this.int(min, max); i > 0; i--) s += chars[this.next() % chars.length];
    return s;
  }
}

/** splitmix32's finaliser. */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A fresh seed when none is given. */
export function newSeed(): number {
  return (Date.now() ^ (process.pid << 16) ^ Math.floor(Math.random() * 0x1_0000_0000)) >>> 0;
}
