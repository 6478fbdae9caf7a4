import type pg from "pg";
import { appError } from "../errors.js";
import { ChannelListener } from "../db/listener.js";
import { log } from "../wire/log.js";
import { keyDigest, type KeyType } from "./keys.js";

/** What a key resolves to; kept in memory so that a known key costs no database round trip. */
export interface KeyEntry {
  keyPairId: string;
  orgId: string;
  orgSeq: number;
  type: KeyType;
  revoked: boolean;
  rateLimitMax: number | null;
  rateLimitWindowS: number | null;
  /** The organisation's identity secret while identity verification is on (publishable-key requests prove their user), else null. */
  identitySecret: string | null;
}

export const KEY_CHANNEL = "key_pairs";
/** The notice's prefix (`org:<organisation id>`) when an organisation's settings that key entries carry changed. */
export const ORG_NOTICE = "org";
const NEGATIVE_TTL_MS = 2000;
const NEGATIVE_MAX = 100_000;
const BY_KEY_MAX = 100_000;
const MAX_MISS_LOOKUPS = 16;

interface KeyRow {
  id: string;
  org_id: string;
  seq: number;
  status: string;
  publishable_digest: Buffer;
  secret_digest: Buffer;
  rate_limit_max: number | null;
  rate_limit_window_s: number | null;
  identity_secret: string | null;
}

const KEY_SELECT = `SELECT k.id, k.org_id, o.seq, k.status, k.publishable_digest, k.secret_digest,
  o.rate_limit_max, o.rate_limit_window_s, CASE WHEN iv.enabled THEN iv.secret END AS identity_secret
  FROM key_pairs k JOIN organisations o ON o.id = k.org_id LEFT JOIN identity_verification iv ON iv.org = o.seq`;

/**
 * Digest → key entry for every key pair, loaded at start and kept current through LISTEN/NOTIFY, so a
 * revocation made by any process on the same database takes effect here within a second, and so does a change
 * of an organisation's settings the entries carry (payload `org:<organisation id>`).
 */
export class KeyCache {
  private readonly byDigest = new Map<string, KeyEntry>();
  private readonly byPair = new Map<string, KeyEntry[]>();
  private readonly byKey = new Map<string, KeyEntry>();
  private readonly unknown = new Map<string, number>();
  /** After a lost connection notices may have been missed, so every (re)listen reloads everything. */
  private readonly listener: ChannelListener;
  private missLookups = 0;

  constructor(
    private readonly pool: pg.Pool,
    connect: () => pg.Client,
  ) {
    this.listener = new ChannelListener(
      connect,
      KEY_CHANNEL,
      (payload) => this.onNotice(payload),
      () => this.reload(),
    );
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  /** Resolves a key: from memory when known, else once from the database (misses are remembered briefly). */
  async lookup(key: string): Promise<KeyEntry | undefined> {
    const known = this.byKey.get(key);
    if (known) return known;
    const entry = await this.lookupDigest(keyDigest(key));
    // Remembering the key itself skips hashing it on every request; bounded, and only for keys that exist.
    if (entry) {
      if (this.byKey.size >= BY_KEY_MAX) this.byKey.clear();
      this.byKey.set(key, entry);
    }
    return entry;
  }

  private async lookupDigest(digest: Buffer): Promise<KeyEntry | undefined> {
    const hex = digest.toString("hex");
    const hit = this.byDigest.get(hex);
    if (hit) return hit;
    const missedAt = this.unknown.get(hex);
    if (missedAt !== undefined && performance.now() - missedAt < NEGATIVE_TTL_MS) return undefined;
    // A flood of made-up keys must not become a flood of queries.
    if (this.missLookups >= MAX_MISS_LOOKUPS) throw appError("unavailable", "unknownKeys");
    this.missLookups++;
    let rows: KeyRow[];
    try {
      rows = await this.query(`${KEY_SELECT} WHERE k.publishable_digest = $1 OR k.secret_digest = $1`, [digest]);
    } finally {
      this.missLookups--;
    }
    if (rows.length === 0) {
      if (this.unknown.size >= NEGATIVE_MAX) this.unknown.clear();
      this.unknown.set(hex, performance.now());
      return undefined;
    }
    rows.forEach((r) => this.store(r));
    return this.byDigest.get(hex);
  }

  /** Applied at once in the process that revoked; other processes hear it by NOTIFY. */
  markRevoked(keyPairId: string): void {
    for (const entry of this.byPair.get(keyPairId) ?? []) entry.revoked = true;
  }

  async refreshPair(keyPairId: string): Promise<void> {
    const rows = await this.query(`${KEY_SELECT} WHERE k.id = $1`, [keyPairId]);
    rows.forEach((r) => this.store(r));
  }

  /** Every pair of an organisation, after a change to what its entries carry of the organisation. */
  async refreshOrg(orgId: string): Promise<void> {
    const rows = await this.query(`${KEY_SELECT} WHERE k.org_id = $1`, [orgId]);
    rows.forEach((r) => this.store(r));
  }

  private async reload(): Promise<void> {
    const rows = await this.query(KEY_SELECT, []);
    rows.forEach((r) => this.store(r));
    log.info("key cache loaded", { key_pairs: rows.length });
  }

  /** Updates a pair's entries in place, so every map that holds them sees the change. */
  private store(row: KeyRow): void {
    const base = {
      keyPairId: row.id,
      orgId: row.org_id,
      orgSeq: row.seq,
      revoked: row.status !== "active",
      rateLimitMax: row.rate_limit_max,
      rateLimitWindowS: row.rate_limit_window_s,
      identitySecret: row.identity_secret,
    };
    const known = this.byPair.get(row.id);
    if (known) {
      for (const entry of known) Object.assign(entry, base);
      return;
    }
    const pub: KeyEntry = { ...base, type: "publishable" };
    const sec: KeyEntry = { ...base, type: "secret" };
    const pubHex = row.publishable_digest.toString("hex");
    const secHex = row.secret_digest.toString("hex");
    this.byDigest.set(pubHex, pub);
    this.byDigest.set(secHex, sec);
    this.unknown.delete(pubHex);
    this.unknown.delete(secHex);
    this.byPair.set(row.id, [pub, sec]);
  }

  private async query(text: string, values: unknown[]): Promise<KeyRow[]> {
    try {
      return (await this.pool.query<KeyRow>(text, values)).rows;
    } catch (err) {
      log.warn("key lookup failed", { error: (err as Error).message });
      throw appError("unavailable", "database");
    }
  }

  private onNotice(payload: string): void {
    if (!payload) return;
    const id = payload.slice(payload.indexOf(":") + 1);
    if (payload.startsWith("revoked:")) this.markRevoked(id);
    const refreshed = payload.startsWith(`${ORG_NOTICE}:`) ? this.refreshOrg(id) : this.refreshPair(id);
    refreshed.catch((err) => log.warn("key refresh failed", { error: (err as Error).message }));
  }
}
