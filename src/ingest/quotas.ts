import type pg from "pg";
import { appError } from "../errors.js";
import { log } from "../wire/log.js";
import { isUnavailable } from "../wire/pgErrors.js";
import type { OrgQuotaLimits } from "../wire/threadData.js";
import type { UsageRow } from "../wire/writeTasks.js";
import type { Submission } from "./batcher.js";

export type QuotaKind = "items" | "users";

interface Usage {
  records: number;
  bytes: number;
  version: number;
}

/** What this process knows of one organisation: its limits, its committed usage, and what it has in flight. */
export interface OrgQuotaState {
  org: number;
  limits: OrgQuotaLimits;
  item: Usage;
  user: Usage;
  /** Reserved by submissions accepted here and not yet committed or refused: their worst case. */
  pendingItems: number;
  pendingUsers: number;
  pendingBytes: number;
  readAt: number;
  /**
   * The database refused a batch this process took for fitting: another process used the quota meanwhile. Until
   * the usage is read again, every submission goes alone, so that no other request shares another refusal.
   */
  doubted: boolean;
}

/** A row the quota leaves out of an upload, and why. */
export type RowVerdict = string | undefined;

const READ_STATE = `
SELECT o.max_items::float8, o.max_users::float8, o.max_attribute_bytes::float8,
  i.records::float8, i.attribute_bytes::float8, i.version::float8, u.records::float8, u.version::float8
FROM organisations o
LEFT JOIN org_usage i ON i.org = o.seq AND i.kind = 'item'
LEFT JOIN org_usage u ON u.org = o.seq AND u.kind = 'user'
WHERE o.seq = $1`;
type StateRow = [number | null, number | null, number | null, number | null, number | null, number | null, number | null, number | null];

const STORED_ITEMS = "SELECT item_id, attribute_bytes FROM items WHERE org = $1 AND item_id = ANY($2::text[])";
const STORED_USERS = "SELECT user_id, 0 FROM users WHERE org = $1 AND user_id = ANY($2::text[])";

/** The message of a refusal, the same words as the database's (migration 013). */
export function quotaMessage(measure: "items" | "users" | "attribute bytes", limit: number, has: number, adds: number, what = "request"): string {
  return appError("quota_exceeded", "quota", { measure, limit, has, what, adds }).message;
}

/**
 * Per-organisation quotas at the front (README, Quotas). PostgreSQL keeps each organisation's usage exact and
 * refuses a transaction that would pass a limit (migration 013): that is the rule, in every process. This is
 * what keeps the rule cheap: an organisation's committed usage is read once, then taken from each committed
 * batch's WriteResult; a submission whose worst case (every record new, every byte added) fits beside what is
 * in flight joins the shared batch at once, with no database round trip. One that might not fit is written
 * alone, so that the database's exact verdict (which ids exist, what they held) refuses it without touching
 * another request. The usage is read again only near a limit (at most every `refreshMs`: other processes' and
 * other writers' changes, a new own limit) or after the database refused a batch this process took for fitting.
 * One entry per organisation that wrote items or users here.
 */
export class OrgQuotas {
  private readonly orgs = new Map<number, OrgQuotaState>();
  private readonly reading = new Map<number, Promise<OrgQuotaState>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly defaults: OrgQuotaLimits,
    private readonly refreshMs = 5000,
  ) {}

  /** The organisation's state if this process holds it. */
  known(org: number): OrgQuotaState | undefined {
    return this.orgs.get(org);
  }

  /** Reads the usage again in the background; the caller goes on with what it holds. */
  private refresh(org: number): void {
    this.load(org).catch((err: unknown) => log.warn("quota usage not refreshed", { org, error: (err as Error).message }));
  }

  /** Reads the organisation's limits and committed usage (first use, or a refresh). */
  load(org: number): Promise<OrgQuotaState> {
    const inFlight = this.reading.get(org);
    if (inFlight) return inFlight;
    const reading = this.read(org)
      .catch((err: unknown) => {
        if (isUnavailable(err)) throw appError("unavailable", "databaseNothingStored");
        throw err;
      })
      .finally(() => this.reading.delete(org));
    this.reading.set(org, reading);
    return reading;
  }

  /** The state, read first if this process has none. */
  async state(org: number): Promise<OrgQuotaState> {
    return this.known(org) ?? (await this.load(org));
  }

  /** True when a submission of this many new records and attribute bytes fits beside what is in flight. */
  fits(state: OrgQuotaState, kind: QuotaKind, records: number, bytes: number): boolean {
    if (state.doubted) return false;
    if (kind === "users") return state.user.records + state.pendingUsers + records <= state.limits.users;
    return (
      state.item.records + state.pendingItems + records <= state.limits.items &&
      state.item.bytes + state.pendingBytes + bytes <= state.limits.attributeBytes
    );
  }

  /**
   * Reserves a submission's worst case against its organisation's limits until the batcher releases it, and
   * marks it `alone` when that might not fit. `bytes` is an upper bound of its items' attribute bytes, and
   * `exactBytes` the figure itself, computed only when the bound does not fit.
   */
  reserve(state: OrgQuotaState, s: Submission, bytes: number, exactBytes: () => number): void {
    const items = s.items?.length ?? 0;
    const users = s.users?.length ?? 0;
    const kind: QuotaKind = items > 0 ? "items" : "users";
    if (kind === "users") bytes = 0; // users' attributes are not counted
    let fits = this.fits(state, kind, items + users, bytes);
    if (!fits && items > 0 && this.fits(state, kind, items, 0)) {
      bytes = exactBytes();
      fits = this.fits(state, kind, items, bytes);
    }
    if (!fits) {
      s.alone = true;
      // Only an organisation near a limit is read again: what others did here is in the WriteResults.
      if (performance.now() - state.readAt > this.refreshMs && !this.reading.has(state.org)) this.refresh(state.org);
    }
    state.pendingItems += items;
    state.pendingUsers += users;
    state.pendingBytes += bytes;
    let released = false;
    s.release = () => {
      if (released) return;
      released = true;
      state.pendingItems -= items;
      state.pendingUsers -= users;
      state.pendingBytes -= bytes;
    };
  }

  /**
   * Which rows of an upload's chunk fit, exactly: the stored usage and the rows already stored are read (the
   * caller has waited for its own earlier chunks), and the rows are taken in order while they fit beside what
   * other requests hold in flight. A row that replaces a stored one adds no item and only its change in bytes.
   */
  async fitRows(org: number, kind: QuotaKind, ids: readonly string[], bytes: readonly number[]): Promise<RowVerdict[]> {
    const state = await this.load(org);
    const stored = await this.pool.query<[string, number]>({
      text: kind === "items" ? STORED_ITEMS : STORED_USERS,
      values: [org, [...new Set(ids)]],
      rowMode: "array",
    });
    const held = new Map<string, number>(stored.rows);
    const usage = kind === "items" ? state.item : state.user;
    const recordLimit = kind === "items" ? state.limits.items : state.limits.users;
    let records = usage.records + (kind === "items" ? state.pendingItems : state.pendingUsers);
    let attributeBytes = state.item.bytes + state.pendingBytes;
    return ids.map((id, i) => {
      const before = held.get(id);
      const addsRecord = before === undefined ? 1 : 0;
      const addsBytes = kind === "items" ? bytes[i]! - (before ?? 0) : 0;
      if (records + addsRecord > recordLimit) return quotaMessage(kind, recordLimit, records, addsRecord, "row");
      if (addsBytes > 0 && attributeBytes + addsBytes > state.limits.attributeBytes) {
        return quotaMessage("attribute bytes", state.limits.attributeBytes, attributeBytes, addsBytes, "row");
      }
      records += addsRecord;
      attributeBytes += addsBytes;
      held.set(id, kind === "items" ? bytes[i]! : 0);
      return undefined;
    });
  }

  /** The organisations of a batch the database refused past a quota: read again, careful meanwhile. */
  doubt(orgs: readonly number[]): void {
    for (const org of orgs) {
      const state = this.orgs.get(org);
      if (!state || state.doubted) continue;
      state.doubted = true;
      this.refresh(org);
    }
  }

  /** The usage a committed batch left (WriteResult), kept when newer than what this process holds. */
  committed(rows: readonly UsageRow[]): void {
    for (const [org, kind, records, bytes, version] of rows) {
      const state = this.orgs.get(org);
      if (!state) continue;
      const usage = kind === "item" ? state.item : state.user;
      if (version < usage.version) continue;
      usage.records = records;
      usage.bytes = bytes;
      usage.version = version;
    }
  }

  private async read(org: number): Promise<OrgQuotaState> {
    const { rows } = await this.pool.query<StateRow>({ text: READ_STATE, values: [org], rowMode: "array" });
    const [maxItems, maxUsers, maxBytes, items, itemBytes, itemVersion, users, userVersion] = rows[0] ?? [];
    const limits: OrgQuotaLimits = {
      items: maxItems ?? this.defaults.items,
      users: maxUsers ?? this.defaults.users,
      attributeBytes: maxBytes ?? this.defaults.attributeBytes,
    };
    const item = { records: items ?? 0, bytes: itemBytes ?? 0, version: itemVersion ?? 0 };
    const user = { records: users ?? 0, bytes: 0, version: userVersion ?? 0 };
    const state = this.orgs.get(org);
    if (!state) {
      const fresh: OrgQuotaState = {
        org,
        limits,
        item,
        user,
        pendingItems: 0,
        pendingUsers: 0,
        pendingBytes: 0,
        readAt: performance.now(),
        doubted: false,
      };
      this.orgs.set(org, fresh);
      return fresh;
    }
    // The object stays: reservations made against it release into it.
    state.limits = limits;
    if (item.version >= state.item.version) state.item = item;
    if (user.version >= state.user.version) state.user = user;
    state.readAt = performance.now();
    state.doubted = false;
    return state;
  }
}
