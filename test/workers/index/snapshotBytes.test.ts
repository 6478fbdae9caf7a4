import { afterEach, describe, expect, it, vi } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { SnapshotReader, SnapshotSections, SnapshotWriter } from "../../../workers/index/snapshotBytes.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const NOW_S = 1_800_000_000;
const DAY_S = 86_400;

/** An index with every structure a replay builds: histories past HISTORY_MAX, earlier items, aliases, co-occurrence, purchases. */
function built(): OrgIndex {
  const index = new OrgIndex(7, NOW_S);
  for (let i = 0; i < 40; i++) index.upsertItem(`i${i}`, "product", "active", { n: i }, NOW_S - 100 * DAY_S + i);
  let t = NOW_S - 60 * DAY_S;
  for (let k = 0; k < 3000; k++) {
    t += 600 + (k % 7) * 60;
    const user = `u${(k * 7) % 23}`;
    const item = `i${(k * 11 + (k >> 3)) % 40}`;
    const family = k % 9 === 0 ? "conversion" : "engagement";
    index.applyEvent(
      {
        userId: user,
        itemId: item,
        family,
        name: family === "conversion" ? "purchase" : "view",
        weight: family === "conversion" ? 4 : 1,
        previousUserId: null,
        atS: t,
      },
      NOW_S,
    );
  }
  for (let k = 0; k < 700; k++)
    index.applyEvent(
      { userId: "heavy", itemId: `i${k % 40}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: t + k },
      NOW_S,
    );
  index.applyEvent({ userId: "anon", itemId: "i3", family: "engagement", name: "view", weight: 1, previousUserId: null, atS: t + 800 }, NOW_S);
  index.applyAlias("anon", "u1");
  return index;
}

function bytesOf(index: OrgIndex): Buffer {
  const w = new SnapshotWriter();
  index.snapshotTo(w);
  const copy = w.copy();
  for (let step = copy.next(); ; step = copy.next()) if (step.done) return Buffer.concat(step.value.parts);
}

function restored(bytes: Buffer): OrgIndex {
  const index = new OrgIndex(7, NOW_S);
  index.restoreFrom(SnapshotReader.of(bytes));
  for (let i = 0; i < 40; i++) index.upsertItem(`i${i}`, "product", "active", { n: i }, NOW_S - 100 * DAY_S + i);
  return index;
}

const REQUESTS = [
  { strategy: "popular", limit: 20 },
  { strategy: "trending", limit: 20 },
  ...["u1", "u2", "heavy", "anon"].flatMap((user_id) => [
    { strategy: "recently-viewed", user_id, limit: 20 },
    { strategy: "buy-again", user_id, limit: 20 },
  ]),
  ...["i0", "i3", "i17"].flatMap((context_item_id) => [
    { strategy: "also-viewed", context_item_id, limit: 20 },
    { strategy: "frequently-bought-together", context_item_id, limit: 20 },
  ]),
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an organisation's index written by snapshotTo and read back by restoreFrom", () => {
  it("ranks every request that does not use the model as the index it was taken from, and goes on from there alike", () => {
    // Shared rankings are cached for 100 ms of the wall clock: a fixed clock keeps the two indexes' caches in step.
    let wallMs = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => wallMs);
    const original = built();
    const copy = restored(bytesOf(original));
    for (const body of REQUESTS) expect([body, rankOnIndex(copy, body, NOW_S)]).toEqual([body, rankOnIndex(original, body, NOW_S)]);
    // The same events applied to both after the snapshot leave them equal (growth past the restored arrays included).
    for (const index of [original, copy]) {
      for (let k = 0; k < 500; k++)
        index.applyEvent(
          {
            userId: `new${k % 30}`,
            itemId: `i${k % 45}`,
            family: "engagement",
            name: "view",
            weight: 1,
            previousUserId: null,
            atS: NOW_S - 1000 + k,
          },
          NOW_S,
        );
    }
    wallMs += 1_000;
    for (const body of [...REQUESTS, { strategy: "recently-viewed", user_id: "new3", limit: 20 }]) {
      expect([body, rankOnIndex(copy, body, NOW_S)]).toEqual([body, rankOnIndex(original, body, NOW_S)]);
    }
    expect(copy.applied).toBe(original.applied);
  });

  it("refuses bytes cut short, bytes of another format, and bytes with more after the end", () => {
    const bytes = bytesOf(built());
    expect(() => restored(bytes.subarray(0, bytes.length - 9))).toThrow(/ends early|does not end/);
    const other = Buffer.from(bytes);
    other.writeDoubleLE(999, 16); // the first section's value (after its length and room): the format
    expect(() => restored(other)).toThrow(/another format/);
    expect(() => restored(Buffer.concat([bytes, Buffer.alloc(16)]))).toThrow(/does not end where it should/);
  });
});

describe("SnapshotSections, cutting a snapshot's bytes into sections as they arrive", () => {
  function pieces(bytes: Buffer, cuts: number[]): SnapshotReader {
    const sections = new SnapshotSections(bytes.length);
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      sections.push(bytes.subarray(from, cut));
      from = cut;
    }
    return sections.end();
  }

  it("restores the same index whatever pieces the bytes arrive in", () => {
    const original = built();
    const bytes = bytesOf(original);
    const whole = new OrgIndex(7, NOW_S);
    whole.restoreFrom(SnapshotReader.of(bytes));
    const expected = bytesOf(whole);
    expect(expected.equals(bytes)).toBe(true);
    // Cut once at every offset of the first sections and of a stretch in the middle, and into 1-byte pieces.
    const offsets = [...Array.from({ length: 64 }, (_, k) => k + 1), ...Array.from({ length: 64 }, (_, k) => (bytes.length >> 1) + k)];
    for (const at of offsets) {
      const index = new OrgIndex(7, NOW_S);
      index.restoreFrom(pieces(bytes, [at]));
      expect(bytesOf(index).equals(bytes), `cut at ${at}`).toBe(true);
    }
    const bytewise = new OrgIndex(7, NOW_S);
    bytewise.restoreFrom(
      pieces(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, k) => k + 1),
      ),
    );
    expect(bytesOf(bytewise).equals(bytes)).toBe(true);
  });

  it("refuses more bytes than the stated size, fewer, a section longer than what is left, and room past its bound", () => {
    const bytes = bytesOf(built());
    const short = new SnapshotSections(bytes.length - 1);
    expect(() => short.push(bytes)).toThrow(/more bytes than its stated size/);
    const long = new SnapshotSections(bytes.length + 1);
    long.push(bytes);
    expect(() => long.end()).toThrow(/ends early/);
    const lying = Buffer.from(bytes);
    lying.writeDoubleLE(bytes.length, 0);
    expect(() => SnapshotReader.of(lying)).toThrow(/a section longer than what is left/);
    lying.writeDoubleLE(-1, 0);
    expect(() => SnapshotReader.of(lying)).toThrow(/a section longer than what is left/);
    const greedy = Buffer.from(bytes);
    greedy.writeDoubleLE(2 ** 40, 8);
    expect(() => SnapshotReader.of(greedy)).toThrow(/room out of bounds/);
    // Many sections each asking for a little room: their sum is bounded too.
    const w = new SnapshotWriter();
    for (let k = 0; k < 200; k++) w.typed(new Uint8Array(0), 0, 1 << 20);
    const copy = w.copy();
    let step = copy.next();
    while (!step.done) step = copy.next();
    expect(() => SnapshotReader.of(Buffer.concat(step.value.parts))).toThrow(/room out of bounds/);
  });
});
