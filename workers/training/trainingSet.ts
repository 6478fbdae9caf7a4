import { ensureLength } from "../index/growable.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { SparseRows } from "./als.js";
import { NOT_RECENT, recencyWeight } from "./query.js";
import { DEFAULT_TRAINING_ENTRIES_MAX } from "../../src/wire/trainingBudget.js";

/**
 * What training learns from: the user × item strength matrix, each user's whole record (their history and the
 * items before it) with weights summed per item (negative events subtract), and beside each entry its recency
 * code (see `recencyWeight`), which the item-item model's per-user lists (userTop.ts) weigh queries by. Nothing
 * fades with age in the matrix: a clock-based fade left an organisation whose history is older than a few
 * months with nothing to learn from, and on MovieLens any fade in the fit cost accuracy on both protocols
 * (docs/recommender.md, Quality). Recency enters at query time instead. Items and users keep the index's ids.
 */
export interface TrainingSet {
  matrix: SparseRows;
  userVersions: Int32Array;
  /** Per entry of matrix.indices: the item's recency code in its user's record. */
  recency: Uint16Array;
  /**
   * The most entries a user's row was given (each user's latest that many items): the training budget's share per
   * user, or USER_ITEMS_MAX when the budget held every row whole. A query that must score as training did (the
   * item-item model's kept lists) reads the same latest items.
   */
  rowMax: number;
}

export function trainingSet(index: OrgIndex, entriesMax = DEFAULT_TRAINING_ENTRIES_MAX): TrainingSet {
  const builder = new TrainingSetBuilder(index, entriesMax);
  while (builder.addUser());
  return builder.finish();
}

/**
 * Reads one user's row: their positive items in the order first touched (the items before their history, then
 * it), each with its summed strength and recency code. A history whose events all bear one time (a record loaded
 * without times, such as a published split) has no order: all its items get code 0, where its arbitrary order
 * would otherwise favour whichever items were listed last. Training and every query read rows through this one
 * reader, so a query sums a user's item rows in the same order as the per-user lists made at training did, and
 * gets the same scores to the last bit. Dense per-item scratch (NaN while untouched): nothing is allocated per row.
 * A row holds the user's latest USER_ITEMS_MAX items (`latestOf`), so that training costs each user at most that
 * many entries whatever their record.
 */
export class RowReader {
  items = new Int32Array(256);
  strengths = new Float64Array(256);
  codes = new Uint16Array(256);
  /** Items in the row just read. */
  size = 0;
  private sums = new Float64Array(0);
  private ranks = new Int32Array(0);
  private order = new Int32Array(256);

  /** Reads user u's row: at most their latest `max` items (USER_ITEMS_MAX, or a training budget's share). */
  read(index: OrgIndex, u: number, max = index.people.limits.itemsMax): void {
    const size = index.catalog.size;
    if (this.sums.length < size) {
      this.sums = ensureLength(this.sums, size, NaN);
      this.ranks = ensureLength(this.ranks, size, -1);
    }
    const { sums, ranks } = this;
    let touched = 0;
    const e = index.people.earlier;
    const h = index.people.history;
    for (const [rows, from, to] of [
      [e, e.start(u), e.start(u) + e.size(u)],
      [h, h.start(u), h.start(u) + h.size(u)],
    ] as const) {
      const { key, value } = rows.cols;
      for (let k = from; k < to; k++) {
        const item = key[k]!;
        if (Number.isNaN(sums[item]!)) {
          this.order = ensureLength(this.order, touched + 1);
          this.order[touched++] = item;
          sums[item] = value[k]!;
        } else sums[item]! += value[k]!;
      }
    }
    const { key, time } = h.cols;
    const start = h.start(u);
    const end = start + h.size(u);
    let ordered = false;
    for (let k = start + 1; k < end && !ordered; k++) ordered = time[k] !== time[start];
    let latest = 0;
    for (let k = end - 1; k >= start; k--) {
      const item = key[k]!;
      if (sums[item]! > 0 && ranks[item] === -1) ranks[item] = ordered ? latest++ : 0;
    }
    let n = 0;
    for (let t = 0; t < touched; t++) {
      const item = this.order[t]!;
      const strength = sums[item]!;
      const rank = ranks[item]!;
      sums[item] = NaN;
      ranks[item] = -1;
      if (!(strength > 0)) continue;
      if (n === this.items.length) {
        this.items = ensureLength(this.items, n + 1);
        this.strengths = ensureLength(this.strengths, n + 1);
        this.codes = ensureLength(this.codes, n + 1);
      }
      this.items[n] = item;
      this.strengths[n] = strength;
      this.codes[n++] = rank === -1 ? NOT_RECENT : Math.min(rank, NOT_RECENT - 1);
    }
    this.size = n;
    if (n > max) this.keep(latestOf(this.codes, n, max));
  }

  /** Keeps only the entries at `positions` (ascending), in their order. */
  private keep(positions: Int32Array): void {
    positions.forEach((at, k) => {
      this.items[k] = this.items[at]!;
      this.strengths[k] = this.strengths[at]!;
      this.codes[k] = this.codes[at]!;
    });
    this.size = positions.length;
  }
}

/**
 * Builds trainingSet() one user at a time, so that a caller may stop between users (the shard answers requests
 * in between: workers/recommender/trainingRows.ts). Each user's version is read with their row, so events applied
 * between two users are either in a user's row and version or in neither.
 */
export class TrainingSetBuilder {
  private readonly users: number;
  private readonly indptr: Int32Array;
  private readonly userVersions: Int32Array;
  private indices: Int32Array;
  private values: Float32Array;
  private recency: Uint16Array;
  private n = 0;
  private u = 0;
  private readonly row = new RowReader();

  /** Each user's row holds at most their latest this many items (TrainingSet.rowMax). */
  private readonly rowMax: number;

  constructor(
    private readonly index: OrgIndex,
    entriesMax = DEFAULT_TRAINING_ENTRIES_MAX,
  ) {
    this.users = index.people.ids.size;
    this.indptr = new Int32Array(this.users + 1);
    this.userVersions = new Int32Array(this.users);
    const { history, earlier, limits } = index.people;
    const lengths = new Int32Array(this.users);
    for (let u = 0; u < this.users; u++) lengths[u] = Math.min(limits.itemsMax, history.size(u) + earlier.size(u));
    this.rowMax = rowShare(lengths, limits.itemsMax, entriesMax);
    // Room for every row as long as it can be now (each user's kept entries, at most rowMax), allocated once:
    // growing by doubling and trimming at the end held up to three times the matrix at once. A row that grows
    // while the set is built in slices (trainingRows.ts) still fits, by growing.
    let room = 0;
    for (let u = 0; u < this.users; u++) room += Math.min(this.rowMax, lengths[u]!);
    this.indices = new Int32Array(room);
    this.values = new Float32Array(room);
    this.recency = new Uint16Array(room);
  }

  /** Adds the next user's row; false once every user is in. */
  addUser(): boolean {
    if (this.u === this.users) return false;
    const u = this.u++;
    const row = this.row;
    row.read(this.index, u, this.rowMax);
    const end = this.n + row.size;
    if (end > this.indices.length) {
      this.indices = ensureLength(this.indices, end);
      this.values = ensureLength(this.values, end);
      this.recency = ensureLength(this.recency, end);
    }
    this.indices.set(row.items.subarray(0, row.size), this.n);
    this.values.set(row.strengths.subarray(0, row.size), this.n);
    this.recency.set(row.codes.subarray(0, row.size), this.n);
    this.n = end;
    this.indptr[u + 1] = end;
    this.userVersions[u] = this.index.people.version[u]!;
    return true;
  }

  finish(): TrainingSet {
    const { users, indptr, n } = this;
    return {
      matrix: { rows: users, cols: this.index.catalog.size, indptr, indices: this.indices.subarray(0, n), values: this.values.subarray(0, n) },
      userVersions: this.userVersions,
      recency: this.recency.subarray(0, n),
      rowMax: this.rowMax,
    };
  }
}

/**
 * The longest row that keeps the set within `entriesMax` when every user gets their latest that many items (rows
 * shorter than it whole): the budget cuts the longest records first, and only as far as it must. `lengths` are
 * each row's length at most (a history's repeated items make a row shorter), so the set stays within the budget.
 */
export function rowShare(lengths: Int32Array, longest: number, entriesMax: number): number {
  const count = new Int32Array(longest + 1);
  let total = 0;
  for (const n of lengths) {
    count[n]!++;
    total += n;
  }
  if (total <= entriesMax) return longest;
  // Lowering the share from c to c − 1 takes one entry from each row of c items or more.
  let share = longest;
  let atLeast = 0;
  while (share > 1 && total > entriesMax) {
    atLeast += count[share]!;
    total -= atLeast;
    share--;
  }
  return share;
}

/** The row reader of requests (one thread ranks one request at a time). */
const requestRow = new RowReader();

/** A user's current strengths per item, read as training reads them (for fold-in at request time). */
export function userStrengths(index: OrgIndex, u: number): { items: Int32Array; strengths: Float64Array } {
  requestRow.read(index, u);
  return { items: requestRow.items.slice(0, requestRow.size), strengths: requestRow.strengths.slice(0, requestRow.size) };
}

/**
 * A user's positive items in their row's order, each weighted by recencyWeight: the query of `personalized`.
 * At most `max` items: then the latest `max` (lowest recency codes; among equal codes, the later in the row).
 */
export function queryOf(index: OrgIndex, u: number, max = Infinity): { items: Int32Array; weights: Float64Array } {
  const row = requestRow;
  row.read(index, u);
  const kept = row.size <= max ? undefined : latestOf(row.codes, row.size, max);
  const n = kept ? kept.length : row.size;
  const items = new Int32Array(n);
  const weights = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const at = kept ? kept[k]! : k;
    items[k] = row.items[at]!;
    weights[k] = recencyWeight(row.codes[at]!);
  }
  return { items, weights };
}

/**
 * Positions of the `max` latest entries (by code, later position first among equals), in row order. A request
 * runs this for a user of more than QUERY_MAX_ITEMS items (up to USER_ITEMS_MAX), so it is one pass:
 * the history's items (codes below NOT_RECENT) are fewer than `max`, so all of them stay, with the last of the
 * earlier ones. Only a longer history than that would need the sort.
 */
export function latestOf(codes: Uint16Array, size: number, max: number): Int32Array {
  let recent = 0;
  for (let k = 0; k < size; k++) if (codes[k] !== NOT_RECENT) recent++;
  if (recent > max) {
    const positions = Int32Array.from({ length: size }, (_, k) => k).sort((a, b) => codes[a]! - codes[b]! || b - a);
    return positions.subarray(0, max).sort();
  }
  const out = new Int32Array(max);
  let older = max - recent;
  let n = max;
  for (let k = size - 1; k >= 0; k--) {
    if (codes[k] !== NOT_RECENT) out[--n] = k;
    else if (older > 0) {
      older--;
      out[--n] = k;
    }
  }
  return out;
}
