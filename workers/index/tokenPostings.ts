/** A list longer than this (a value such as `in_stock=true`) is too common to find neighbours by: it is dropped. */
export const POSTING_USEFUL_MAX = 5_000;
const EMPTY = 0;
/** state of a dropped token: too common, never walked again. */
const DROPPED = -0x7fffffff;

/**
 * Items by token hash, in an open-addressing table of typed arrays: a token held by one item (most of a long
 * tag list's) costs its 8 bytes of slot and nothing more; a list is made once a second item holds it. No
 * string is kept. Entries are not removed when an item's tokens change (that would cost a list's length per
 * token per upsert): readers check each entry against the item's sketch, and a list is purged of stale entries
 * whenever its length reaches a power of two.
 */
export class TokenPostings {
  private keys = new Uint32Array(1024);
  /** EMPTY; item + 1 when one item holds the token; -(list index + 1) for a list; DROPPED. */
  private state = new Int32Array(1024);
  private readonly lists: (number[] | undefined)[] = [];
  /** Distinct tokens held (dropped ones included). */
  size = 0;

  constructor(private readonly maxTokens: number) {}

  /** The slot of `token`, or -1 when it is not held. */
  find(token: number): number {
    const mask = this.keys.length - 1;
    for (let s = hashSlot(token, mask); ; s = (s + 1) & mask) {
      const st = this.state[s]!;
      if (st === EMPTY) return -1;
      if (this.keys[s] === token) return s;
    }
  }

  /** Items the slot's list holds (1 for a single item, 0 when dropped), stale entries included. */
  length(slot: number): number {
    const st = this.state[slot]!;
    if (st > 0) return 1;
    if (st === DROPPED) return 0;
    return this.lists[-st - 1]!.length;
  }

  /** The k-th item of the slot's list (k < length(slot)). */
  item(slot: number, k: number): number {
    const st = this.state[slot]!;
    return st > 0 ? st - 1 : this.lists[-st - 1]![k]!;
  }

  /**
   * Records that `item` holds `token`; `holds(item)` says whether an entry is still current (for purging). A
   * token not held yet is not added once maxTokens are held: the index stops growing, and still serves.
   */
  add(token: number, item: number, holds: (item: number) => boolean): void {
    let s = this.find(token);
    if (s < 0) {
      if (this.size >= this.maxTokens) return;
      if ((this.size + 1) * 2 > this.keys.length) this.rehash(this.keys.length * 2);
      s = this.freeSlot(token);
      this.keys[s] = token;
      this.state[s] = item + 1;
      this.size++;
      return;
    }
    const st = this.state[s]!;
    if (st === DROPPED) return;
    if (st > 0) {
      if (st - 1 === item) return;
      this.lists.push([st - 1, item]);
      this.state[s] = -this.lists.length;
      return;
    }
    const list = this.lists[-st - 1]!;
    if (list.length >= 16 && (list.length & (list.length - 1)) === 0) purge(list, holds);
    if (list.length >= POSTING_USEFUL_MAX) {
      this.lists[-st - 1] = undefined;
      this.state[s] = DROPPED;
      return;
    }
    list.push(item);
  }

  private freeSlot(token: number): number {
    const mask = this.keys.length - 1;
    let s = hashSlot(token, mask);
    while (this.state[s] !== EMPTY) s = (s + 1) & mask;
    return s;
  }

  private rehash(capacity: number): void {
    const { keys, state } = this;
    this.keys = new Uint32Array(capacity);
    this.state = new Int32Array(capacity);
    for (let s = 0; s < keys.length; s++) {
      if (state[s] === EMPTY) continue;
      const to = this.freeSlot(keys[s]!);
      this.keys[to] = keys[s]!;
      this.state[to] = state[s]!;
    }
  }
}

/** Token hashes are already uniform; their low bits pick the slot. */
function hashSlot(token: number, mask: number): number {
  return token & mask;
}

/** Keeps the list's current entries, once each, in order. */
function purge(list: number[], holds: (item: number) => boolean): void {
  const seen = new Set<number>();
  let kept = 0;
  for (const item of list) {
    if (seen.has(item) || !holds(item)) continue;
    seen.add(item);
    list[kept++] = item;
  }
  list.length = kept;
}
