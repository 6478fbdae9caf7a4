import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { call, type ApiResponse, type Org } from "./api.js";

const HOUR_MS = 3_600_000;

export interface EventSpec {
  user: string;
  item?: string | null;
  name?: string;
  family?: string;
  /** How long ago it happened (default: now). */
  hoursAgo?: number;
  extra?: Record<string, unknown>;
}

const FAMILY: Record<string, string> = { purchase: "conversion", checkout: "conversion", subscribe: "conversion", identify: "system" };

export function event(e: EventSpec): Record<string, unknown> {
  const name = e.name ?? "view";
  return {
    user_id: e.user,
    event_family: e.family ?? FAMILY[name] ?? "engagement",
    event_name: name,
    item_id: e.item ?? null,
    event_id: randomUUID(),
    timestamp: new Date(Date.now() - (e.hoursAgo ?? 0) * HOUR_MS).toISOString(),
    ...e.extra,
  };
}

export async function sendEvents(base: string, org: Org, events: EventSpec[]): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const r = await call(base, "POST", "/v1/events/ingest", { json: events.slice(i, i + 1000).map(event), apiKey: org.pk });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
  }
}

export interface ItemSpec {
  item_id: string;
  item_type?: string;
  status?: string;
  attributes?: Record<string, unknown>;
  created_at?: string;
}

export async function upsertItems(base: string, org: Org, items: ItemSpec[]): Promise<void> {
  const json = items.map((i) => ({ item_type: "product", status: "active", ...i }));
  const r = await call(base, "POST", "/v1/items/upsert", { json, apiKey: org.sk });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
}

export function recommend(base: string, org: Org, body: Record<string, unknown>): Promise<ApiResponse> {
  return call(base, "POST", "/v1/recommend", { json: body, apiKey: org.pk });
}

/** The item ids of a successful recommend answer. */
export async function recommended(base: string, org: Org, body: Record<string, unknown>): Promise<string[]> {
  const r = await recommend(base, org, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.recommended_items as string[];
}

/** Polls `probe` until `accept` holds or the time runs out; returns the last value and the time taken. */
export async function eventually<T>(probe: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 5000): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() - started > timeoutMs) return { value, ms: Date.now() - started };
    await new Promise((r) => setTimeout(r, 25));
  }
}
