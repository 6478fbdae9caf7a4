/**
 * Mutations that understand JSON: they keep the text parseable (mostly) and bend one field, so the request
 * gets past the parser to validation, the database and the recommender.
 */
import type { Prng } from "./prng.js";
import { cloneJson, DupKeys, Raw, replaceAt, slots, toJsonText, type Slot } from "./jsonText.js";

const MAX_BODY = 5 * 1024 * 1024;
export const MAX_RECORDS = 10_000;

interface JsonMutation {
  /** When not the mutator's name. */
  kind?: string;
  /** The mutated root, to be written as JSON (or NDJSON) text. */
  root?: unknown;
  /** Or the body already written (size mutations build it themselves). */
  body?: Buffer;
}

type Mutator = (rng: Prng, root: unknown, ndjson: boolean) => JsonMutation;

const pickSlot = (rng: Prng, root: unknown, want: (s: Slot) => boolean = () => true): Slot | undefined => {
  const all = slots(root).filter(want);
  return all.length ? rng.pick(all) : undefined;
};
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof DupKeys);
const isString = (s: Slot) => typeof s.value === "string";
const keyName = (s: Slot) => (typeof s.key === "string" ? s.key : "");

const OTHER_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, "", "x", [], {}, [1, 2], { a: 1 }, [null], "[object Object]"];

const UNICODE = [
  "😀🎉👍🏽",
  "e\u0301\u0301\u0301",
  "\u202eevil\u202c",
  "zero\u200bwidth",
  "\ufeffbom",
  "\ud800",
  "\udc00tail",
  "a\ud83d",
  "\ud83d\ude00\ud83d",
  "nul\u0000byte",
  "\u0001\u001f",
  "del\u007f",
  "c1\u0085",
  "line\u2028sep\u2029",
  "\uffff\ufffe",
  "𝕳𝖊𝖑𝖑𝖔",
  "中文字符",
  "עברית",
  "\\\"'`<script>",
  "%00%ff",
  "${jndi:x}",
  "' OR 1=1 --",
  "../../etc/passwd",
  "\r\n\r\nHTTP/1.1 200 OK",
];
const NUMBERS = [
  "1e308",
  "1e309",
  "-1e309",
  "123456789012345678901234567890",
  "9007199254740993",
  "-0",
  "0.1e-400",
  "1E+2",
  "5e-324",
  "0.0",
  "-1",
  "1.0000000000000001",
];
const NAN_ISH = ["NaN", "Infinity", "-Infinity", "undefined", "null", "1e999", "0x1F", "true", " 1 ", "-0", "1,5", "٣"];
const RAW_INVALID = ["NaN", "Infinity", "undefined", "0x10", "01", "+1", ".5", "1.", "'single'", "tru", "nul"];
const TIMESTAMPS = [
  "0001-01-01T00:00:00+14:00",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59-14:00",
  "9999-12-31T23:59:59Z",
  "2024-02-29T00:00:00Z",
  "2024-01-01T00:00:00.123456789Z",
  "1970-01-01T00:00:00Z",
  "1969-12-31T23:59:59.999Z",
  "2024-01-01T00:00:00+23:59",
  "0000-01-01T00:00:00Z",
  "+002024-01-01T00:00:00Z",
  "2024-01-01T00:00:00z",
  "2024-01-01 00:00:00Z",
  "2024-01-01T00:00:00",
  "2024-13-01T00:00:00Z",
  "",
];

function futureTimestamps(): string[] {
  const now = Date.now();
  return [new Date(now + 86_400_000 - 60_000).toISOString(), new Date(now + 86_400_000 + 60_000).toISOString()];
}

function withString(rng: Prng, root: unknown, make: (s: Slot) => unknown, want: (s: Slot) => boolean = isString): JsonMutation {
  const s = pickSlot(rng, root, want) ?? pickSlot(rng, root)!;
  return { root: replaceAt(root, s, make(s)) };
}

const ID_KEYS = /(^|_)id$|^item_type$|^email$|^organisation$/;

const MUTATORS: Array<readonly [string, Mutator, number]> = [
  [
    "drop-field",
    (rng, root) => {
      const s = pickSlot(rng, root, (x) => isObject(x.parent));
      if (s) delete (s.parent as Record<string, unknown>)[s.key as string];
      return { root };
    },
    3,
  ],
  [
    "duplicate-field",
    (rng, root) => {
      const s = pickSlot(rng, root, (x) => isObject(x.value) && Object.keys(x.value).length > 0);
      if (!s) return { root };
      const entries = Object.entries(s.value as Record<string, unknown>);
      const [k, v] = rng.pick(entries);
      entries.push([k, rng.chance(0.5) ? v : rng.pick(OTHER_TYPES)]);
      return { root: replaceAt(root, s, new DupKeys(entries)) };
    },
    2,
  ],
  ["retype", (rng, root) => ({ root: replaceAt(root, pickSlot(rng, root)!, cloneJson(rng.pick(OTHER_TYPES))) }), 4],
  ["huge-string", (rng, root) => withString(rng, root, () => "x".repeat(rng.pick([10_000, 100_000, 1_100_000, 4_000_000]))), 1],
  ["empty-string", (rng, root) => withString(rng, root, () => ""), 2],
  ["unicode", (rng, root) => withString(rng, root, (s) => (rng.chance(0.5) ? rng.pick(UNICODE) : `${s.value}${rng.pick(UNICODE)}`)), 4],
  [
    "id-length",
    (rng, root) =>
      withString(
        rng,
        root,
        () => {
          const n = rng.pick([255, 256, 257, 1024]);
          return rng.chance(0.7) ? "i".repeat(n) : "😀".repeat(Math.ceil(n / 2));
        },
        (s) => isString(s) && ID_KEYS.test(keyName(s)),
      ),
    4,
  ],
  [
    "deep-nesting",
    (rng, root) => {
      const depth = rng.pick([64, 99, 100, 101, 1000, 3000, 10_000, 100_000]);
      const nest = rng.chance(0.5) ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
      return { root: replaceAt(root, pickSlot(rng, root)!, new Raw(nest)) };
    },
    2,
  ],
  ["big-number", (rng, root) => ({ root: replaceAt(root, pickSlot(rng, root)!, new Raw(rng.pick(NUMBERS))) }), 3],
  [
    "nan-ish",
    (rng, root) => ({ root: replaceAt(root, pickSlot(rng, root)!, rng.chance(0.7) ? rng.pick(NAN_ISH) : new Raw(rng.pick(RAW_INVALID))) }),
    3,
  ],
  [
    "extra-field",
    (rng, root) => {
      const s = pickSlot(rng, root, (x) => isObject(x.value));
      if (!s) return { root };
      const extra = rng.pick<[string, unknown]>([
        ["unknown_field", 1],
        ["__proto__", { polluted: true }],
        ["constructor", { prototype: { polluted: true } }],
        ["", ""],
        ["toString", 1],
      ]);
      const entries = [...Object.entries(s.value as Record<string, unknown>), extra];
      return { root: replaceAt(root, s, new DupKeys(entries)) };
    },
    2,
  ],
  ["wrong-root", (rng) => ({ root: rng.pick<unknown>([null, 0, "text", true, [], {}, [[]], [null], [1, 2], new Raw(""), new Raw(" ")]) }), 2],
  [
    "timestamp-edge",
    (rng, root) =>
      withString(
        rng,
        root,
        () => rng.pick([...TIMESTAMPS, ...futureTimestamps()]),
        (s) => /timestamp|created_at|^from$|^to$/.test(keyName(s)),
      ),
    3,
  ],
  ["array-limit", arrayLimit, 1],
  ["size-limit", sizeLimit, 1],
];

/** Arrays at and just over their limits: records (10,000), exclusions (1,000), filters (20), fields (100). */
function arrayLimit(rng: Prng, root: unknown, ndjson: boolean): JsonMutation {
  const over = rng.chance(0.5) ? 1 : 0;
  if (Array.isArray(root) && root.length > 0) {
    const n = MAX_RECORDS + over;
    const proto = root[0];
    const out = Array.from({ length: n }, () => {
      const r = cloneJson(proto);
      if (isObject(r) && typeof r.event_id === "string") r.event_id = rng.uuid();
      return r;
    });
    return { kind: `array-limit-${n}`, root: out };
  }
  if (isObject(root) && !ndjson) {
    const which = rng.int(0, 2);
    if (which === 0) root.exclude_item_ids = Array.from({ length: 1000 + over }, (_, i) => `x-${i}`);
    else if (which === 1) root.filters = Object.fromEntries(Array.from({ length: 20 + over }, (_, i) => [`attr${i}`, i]));
    else root.fields = Array.from({ length: 100 + over }, (_, i) => `f${i}`);
    return { kind: `array-limit-${["exclude", "filters", "fields"][which]}-${over ? "over" : "at"}`, root };
  }
  return { kind: "array-limit", root };
}

/** Bodies just under, at and over 5 MiB: valid JSON padded with whitespace, or records fattened near 32 KiB each. */
function sizeLimit(rng: Prng, root: unknown, ndjson: boolean): JsonMutation {
  const target = MAX_BODY + rng.pick([-1, 0, 1, 1024 * 1024]);
  if (rng.chance(0.3) && Array.isArray(root) && root.length > 0 && isObject(root[0])) {
    const fat = { ...root[0], attributes: { pad: "p".repeat(30_000) } };
    delete (fat as Record<string, unknown>).context;
    const one = Buffer.byteLength(JSON.stringify(fat)) + 1;
    const n = Math.ceil(target / one);
    const text = toJsonText(Array.from({ length: n }, () => fat));
    return { kind: `size-fat-records-${text.length > MAX_BODY ? "over" : "under"}`, body: Buffer.from(text) };
  }
  const text = ndjson && Array.isArray(root) ? root.map(toJsonText).join("\n") + "\n" : toJsonText(root);
  const pad = Math.max(0, target - Buffer.byteLength(text));
  const label = target < MAX_BODY ? "under" : target === MAX_BODY ? "at" : target === MAX_BODY + 1 ? "over-by-1" : "over-by-1MiB";
  return { kind: `size-${label}`, body: Buffer.concat([Buffer.from(text), Buffer.alloc(pad, 0x20)]) };
}

export function mutateJson(rng: Prng, value: unknown, ndjson: boolean): { kind: string; body: Buffer } {
  const [name, mutate] = rng.weighted(MUTATORS.map(([n, m, w]) => [[n, m] as const, w] as const));
  const m = mutate(rng, cloneJson(value), ndjson);
  const text = () => (ndjson && Array.isArray(m.root) ? m.root.map(toJsonText).join("\n") + "\n" : toJsonText(m.root));
  return { kind: `json.${m.kind ?? name}`, body: m.body ?? Buffer.from(text()) };
}
