import type { Model } from "../model/model.js";
import { type AttributeCaps, UNCAPPED } from "./attributeCaps.js";
import type { Attributes } from "./attributeIndex.js";
import { Catalog } from "./catalog.js";
import { FAMILY } from "../../src/wire/eventFamily.js";
import { type EventId, type EventText, IndexEvent } from "./indexEvent.js";
import { People } from "./people.js";
import { Signals } from "./signals.js";
import { DEFAULT_USER_LIMITS, type UserLimits } from "../../src/wire/userLimits.js";
import type { SnapshotReader, SnapshotWriter } from "./snapshotBytes.js";

/** Bumped whenever what snapshotTo() writes changes: a snapshot of another format is not read (a full load instead). */
export const INDEX_SNAPSHOT_FORMAT = 3;

/** Same-visit pairs: engagements within a day, conversions within three days, of the same user. */
const PAIR_WINDOW_S = { [FAMILY.engagement]: 86_400, [FAMILY.conversion]: 3 * 86_400 } as Record<number, number>;
const PAIR_LOOKBACK = 32;
const PAIR_MAX = 16;

/** Where applyEvent normalises an event given as text. */
const fromText = new IndexEvent();

/**
 * Everything one recommender thread knows about one organisation. Updated in place by each committed ingest
 * batch (no locks: only the owning thread touches it); the trained model is built elsewhere and swapped in.
 */
export class OrgIndex {
  readonly catalog: Catalog;
  readonly people: People;
  readonly signals: Signals;
  model: Model | undefined;
  /** Interactions recorded since the model was last trained (drives retraining). */
  eventsSinceTraining = 0;
  /** Changes applied since the index's full load (events, aliases, erasures): what its snapshot saves a replay of. */
  applied = 0;

  constructor(
    readonly org: number,
    nowS = Date.now() / 1000,
    caps: AttributeCaps = UNCAPPED,
    limits: UserLimits = DEFAULT_USER_LIMITS,
  ) {
    this.catalog = new Catalog(caps);
    this.people = new People(limits);
    this.signals = new Signals(nowS);
  }

  upsertItem(itemId: string, itemType: string, status: string, attributes: Attributes, createdS: number | null): void {
    this.catalog.upsert(itemId, itemType, status, attributes, createdS);
  }

  upsertUser(userId: string, status: string): void {
    this.people.setStatus(userId, status);
  }

  /** Once the index is built from PostgreSQL: give back the room rows kept for growing (most will not grow soon). */
  trim(): void {
    this.people.history.trim();
    this.people.earlier.trim();
    this.signals.alsoViewed.trim();
    this.signals.boughtTogether.trim();
  }

  /**
   * What replaying the events built (index/snapshotBytes.ts): ids, histories, aliases, counters and
   * co-occurrence. Not the model (trained again, or loaded with CLUSTER=1), nor what the items and users tables
   * hold (read at every load). The version is INDEX_SNAPSHOT_FORMAT.
   */
  snapshotTo(w: SnapshotWriter): void {
    w.number(INDEX_SNAPSHOT_FORMAT);
    w.number(this.eventsSinceTraining);
    w.number(this.applied);
    this.catalog.snapshotTo(w);
    this.people.snapshotTo(w);
    this.signals.snapshotTo(w);
    w.number(INDEX_SNAPSHOT_FORMAT);
  }

  /** Into a new OrgIndex (nothing applied yet); throws on bytes of another format or that do not read whole. */
  restoreFrom(r: SnapshotReader): void {
    if (r.number() !== INDEX_SNAPSHOT_FORMAT) throw new Error("index snapshot: another format");
    this.eventsSinceTraining = r.number();
    this.applied = r.number();
    this.catalog.restoreFrom(r);
    this.people.restoreFrom(r);
    this.signals.restoreFrom(r);
    if (r.number() !== INDEX_SNAPSHOT_FORMAT || !r.done) throw new Error("index snapshot: does not end where it should");
  }

  /**
   * `previous` now stands for `user` (an identify the database accepted: the shard skips those it refused, so
   * this never decides, only follows).
   */
  applyAlias(previous: string, user: string): void {
    this.people.alias(previous, user);
    this.people.intern(user);
    this.applied++;
  }

  /**
   * Erased users: their histories, statuses and aliases go; what they added to item counters and co-occurrence
   * stays (aggregates, README Erasure). Their interactions count as changes, so the model is retrained without them.
   */
  eraseUsers(userIds: readonly string[]): void {
    this.eventsSinceTraining += this.people.erase(userIds);
    this.applied++;
  }

  /**
   * The one way in for an event, whichever way it came (index/indexEvent.ts): an identify naming a previous id
   * aliases it; an engagement or a conversion of an item is recorded; any other event only makes its user known.
   * An event given as text (tests, the evaluation's replay) is normalised first.
   */
  applyEvent(event: IndexEvent | EventText, nowS: number): void {
    const e =
      event instanceof IndexEvent
        ? event
        : fromText.fromText(event.userId, event.itemId, event.family, event.name, event.weight, event.previousUserId, event.atS);
    if (e.identify && e.previousUser.filled) {
      this.applyAlias(e.previousUser.toString(), e.user.toString());
      return;
    }
    const u = this.internUser(e.user);
    const kind = e.family === FAMILY.conversion || e.family === FAMILY.engagement ? e.family : 0;
    if (e.item.present && kind !== 0) this.applyInteraction(u, this.internItem(e.item), kind, e.weight, e.atS, nowS);
  }

  /** Ids read in place are looked up by their bytes (no string made for an id the index knows). */
  private internUser(id: EventId): number {
    return id.bytes === null ? this.people.intern(id.text!) : this.people.internBytes(id.bytes, id.at, id.n);
  }

  private internItem(id: EventId): number {
    return id.bytes === null ? this.catalog.intern(id.text!) : this.catalog.internBytes(id.bytes, id.at, id.n);
  }

  /** An engagement or a conversion of user `u` with `item`, both interned. */
  private applyInteraction(u: number, item: number, kind: number, weight: number, atS: number, nowS: number): void {
    if (weight > 0) {
      this.pairWithRecent(u, item, kind, atS);
      this.signals.countInteraction(item, weight, atS, nowS);
      if (kind === FAMILY.conversion) this.signals.countPurchase(item, this.purchasesOf(u, item));
    }
    this.people.record(u, item, weight, atS, kind);
    this.eventsSinceTraining++;
    this.applied++;
  }

  /** Counts (item, each distinct item of the same kind the user touched shortly before) as co-occurring. */
  private pairWithRecent(u: number, item: number, kind: number, atS: number): void {
    const h = this.people.history;
    const { key, time, kind: kinds, value } = h.cols;
    const start = h.start(u);
    const window = PAIR_WINDOW_S[kind]!;
    const partners: number[] = [];
    for (let k = start + h.size(u) - 1, seen = 0; k >= start && seen < PAIR_LOOKBACK; k--, seen++) {
      if (kinds[k] !== kind || value[k]! <= 0 || Math.abs(atS - time[k]!) > window) continue;
      const other = key[k]!;
      if (other === item) return; // already paired during this visit
      if (!partners.includes(other)) partners.push(other);
      if (partners.length === PAIR_MAX) break;
    }
    const co = kind === FAMILY.conversion ? this.signals.boughtTogether : this.signals.alsoViewed;
    for (const other of partners) co.addPair(item, other);
    co.countItem(item);
  }

  private purchasesOf(u: number, item: number): number {
    const h = this.people.history;
    const start = h.start(u);
    let n = 0;
    for (let k = start; k < start + h.size(u); k++) {
      if (h.cols.key[k] === item && h.cols.kind[k] === FAMILY.conversion && h.cols.value[k]! > 0) n++;
    }
    return n;
  }
}
