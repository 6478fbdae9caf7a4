import { utf8Text } from "../../src/wire/msgpackCursor.js";
import { ensureLength } from "./growable.js";
import { Interner } from "./interner.js";
import { RowStore } from "./rowStore.js";
import { STATUS } from "./catalog.js";
import type { SnapshotReader, SnapshotWriter } from "./snapshotBytes.js";
import { DEFAULT_USER_LIMITS, type UserLimits } from "../../src/wire/userLimits.js";

const ALIAS_HOPS = 8;

/**
 * Users (interned), their status, identity aliases and their recent history: (item, weight, time, kind) rows
 * in one RowStore. An `identify` moves the anonymous id's history into the user's and routes its later events
 * there too, so every strategy sees one person.
 */
export class People {
  readonly ids = new Interner();
  status = new Uint8Array(1024);
  /** The latest `limits.historyMax` events. Weights are CONTRACT 4's, whole numbers from −2 to 5: one byte each. */
  readonly history: RowStore;
  /**
   * What a user did before their history's window: each item once, with its weights summed (5 bytes an item: the
   * sum is held to a signed byte, −128…127, which only a record of dozens of purchases of one item reaches).
   * The model learns from it and `exclude_seen` leaves its items out, so a heavy user's old interactions still count.
   * At most `limits.itemsMax` items (past it, those first touched longest ago go, a quarter at a time): no more
   * are ever read (trainingSet.ts keeps a user's latest itemsMax items).
   */
  readonly earlier: RowStore;
  /** previous_user_id → user_id */
  private readonly aliases = new Map<string, string>();
  /** Bumped per user when their history changes, so a cached fold-in vector knows it is stale. */
  version = new Int32Array(1024);

  constructor(readonly limits: UserLimits = DEFAULT_USER_LIMITS) {
    this.history = new RowStore(limits.historyMax, { value: Int8Array, timed: true });
    this.earlier = new RowStore(limits.itemsMax, { value: Int8Array, timed: false });
  }

  /** The id that `userId` now stands for, following identify aliases. */
  canonical(userId: string): string {
    let id = userId;
    for (let hop = 0; hop < ALIAS_HOPS; hop++) {
      const next = this.aliases.get(id);
      if (next === undefined || next === id) break;
      id = next;
    }
    return id;
  }

  /** The interned user `userId` resolves to, or -1 when unknown. */
  find(userId: string): number {
    return this.ids.find(this.canonical(userId));
  }

  intern(userId: string): number {
    return this.grown(this.ids.intern(this.canonical(userId)));
  }

  /** intern() for an id given as UTF-8 bytes (in a packed batch); a string is made only when aliases may apply. */
  internBytes(bytes: Uint8Array, at: number, n: number): number {
    if (this.aliases.size > 0) return this.intern(utf8Text(bytes, at, n));
    return this.grown(this.ids.internBytes(bytes, at, n));
  }

  private grown(u: number): number {
    if (u >= this.status.length) {
      this.status = ensureLength(this.status, u + 1);
      this.version = ensureLength(this.version, u + 1);
    }
    return u;
  }

  setStatus(userId: string, status: string): void {
    const u = this.intern(userId);
    this.status[u] = status === "active" ? STATUS.active : status === "inactive" ? STATUS.inactive : STATUS.deleted;
  }

  /** Unknown status (seen only in events) counts as active. */
  isHidden(u: number): boolean {
    return this.status[u] === STATUS.inactive || this.status[u] === STATUS.deleted;
  }

  record(u: number, item: number, weight: number, atS: number, kind: number): void {
    const h = this.history;
    const drops = h.dropsOnPush(u);
    if (drops > 0) this.keepEarlier(u, h.cols.key, h.cols.value, h.start(u), drops);
    h.push(u, item, weight, atS, kind);
    this.version[u]!++;
  }

  /** Sums `n` interactions (keys and weights from `from`) into user u's earlier items. */
  private keepEarlier(u: number, keys: ArrayLike<number>, weights: ArrayLike<number>, from: number, n: number): void {
    const e = this.earlier;
    for (let k = from; k < from + n; k++) {
      const item = keys[k]!;
      const start = e.start(u);
      let at = start + e.size(u) - 1;
      while (at >= start && e.cols.key[at] !== item) at--;
      if (at >= start) e.cols.value[at] = heldToByte(e.cols.value[at]! + weights[k]!);
      else e.push(u, item, heldToByte(weights[k]!));
    }
  }

  /**
   * Forgets these users: their history and earlier items, their status (an id used again later starts anew), and
   * every alias from or to them (an id merged into one of them keeps its own later events). Their rows' versions
   * move, so no vector folded in from the old history is used again. Returns the interactions they held.
   */
  erase(userIds: readonly string[]): number {
    const erased = new Set(userIds);
    for (const [previous, target] of this.aliases) if (erased.has(previous) || erased.has(target)) this.aliases.delete(previous);
    let held = 0;
    for (const id of erased) {
      const u = this.ids.find(id);
      if (u < 0) continue;
      held += this.history.size(u) + this.earlier.size(u);
      this.history.wipe(u);
      this.earlier.wipe(u);
      this.status[u] = STATUS.unknown;
      this.version[u]!++;
    }
    return held;
  }

  /** Ids, aliases and histories (statuses are the users table's, read at every load). */
  snapshotTo(w: SnapshotWriter): void {
    w.texts(this.ids.names);
    w.texts([...this.aliases].flat());
    this.history.snapshotTo(w);
    this.earlier.snapshotTo(w);
  }

  restoreFrom(r: SnapshotReader): void {
    this.ids.restoreFrom(r.texts());
    const aliases = r.texts();
    for (let k = 0; k + 1 < aliases.length; k += 2) this.aliases.set(aliases[k]!, aliases[k + 1]!);
    this.history.restoreFrom(r);
    this.earlier.restoreFrom(r);
    this.grown(Math.max(0, this.ids.size - 1));
    this.holdToLimits();
  }

  /**
   * A snapshot taken with larger limits (USER_HISTORY_MAX, USER_ITEMS_MAX lowered since) is held to this
   * process's at once, as if its users' events had come under them: a history's oldest events beyond the limit
   * join the earlier items, and the earlier items first touched longest ago go.
   */
  private holdToLimits(): void {
    const h = this.history;
    for (let u = 0; u < this.ids.size; u++) {
      const over = h.excess(u);
      if (over > 0) {
        this.keepEarlier(u, h.cols.key, h.cols.value, h.start(u), over);
        h.dropOldest(u, over);
      }
      const more = this.earlier.excess(u);
      if (more > 0) this.earlier.dropOldest(u, more);
    }
  }

  /** identify: `previous`'s history joins `user`'s (in time order) and its later events go to `user`. */
  alias(previous: string, user: string): void {
    const target = this.canonical(user);
    if (this.canonical(previous) === target) return;
    const from = this.ids.find(this.canonical(previous));
    this.aliases.set(previous, target);
    if (from < 0) return;
    const to = this.intern(target);
    const h = this.history;
    const entries: [number, number, number, number][] = [];
    for (const r of [to, from]) {
      const start = h.start(r);
      for (let k = start; k < start + h.size(r); k++) entries.push([h.cols.key[k]!, h.cols.value[k]!, h.cols.time[k]!, h.cols.kind[k]!]);
    }
    entries.sort((a, b) => a[2] - b[2]);
    h.clear(to);
    h.clear(from);
    const historyMax = this.limits.historyMax;
    const older = entries.slice(0, Math.max(0, entries.length - historyMax));
    const e = this.earlier;
    const earlier = { keys: older.map((x) => x[0]), weights: older.map((x) => x[1]) };
    for (let k = e.start(from); k < e.start(from) + e.size(from); k++) {
      earlier.keys.push(e.cols.key[k]!);
      earlier.weights.push(e.cols.value[k]!);
    }
    e.clear(from);
    this.keepEarlier(to, earlier.keys, earlier.weights, 0, earlier.keys.length);
    for (const [item, weight, time, kind] of entries.slice(-historyMax)) h.push(to, item, weight, time, kind);
    this.version[to]!++;
    this.version[from]!++;
  }
}

/** A summed weight held to a signed byte (an Int8Array would wrap it around instead). */
function heldToByte(weight: number): number {
  return Math.max(-128, Math.min(127, weight));
}
