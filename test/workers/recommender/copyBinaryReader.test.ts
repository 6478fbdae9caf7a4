import { describe, expect, it } from "vitest";
import { CopyBinaryReader } from "../../../workers/recommender/copyBinaryReader.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** COPY's binary output for `rows` (null: a NULL field), with a header extension of `extension` bytes. */
function copyStream(rows: (Uint8Array | null)[][], extension = 0): Buffer {
  const out: Buffer[] = [SIGNATURE, Buffer.alloc(4)];
  const ext = Buffer.alloc(4);
  ext.writeUInt32BE(extension);
  out.push(ext, Buffer.alloc(extension, 0xee));
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length);
    out.push(count);
    for (const f of row) {
      const n = Buffer.alloc(4);
      n.writeInt32BE(f === null ? -1 : f.length);
      out.push(n);
      if (f) out.push(Buffer.from(f));
    }
  }
  out.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(out);
}

/** What the reader hands on: each field as [row, field, its bytes joined, or null]. */
function read(chunks: Buffer[]): { fields: [number, number, string | null][]; rows: number } {
  const fields: [number, number, string | null][] = [];
  const reader = new CopyBinaryReader({
    field: (row, field, length) => fields.push([row, field, length < 0 ? null : ""]),
    bytes: (piece) => {
      const last = fields[fields.length - 1]!;
      last[2] += Buffer.from(piece).toString("latin1");
    },
  });
  for (const c of chunks) reader.push(c);
  return { fields, rows: reader.end() };
}

const ROWS = [[Buffer.from("12345678"), Buffer.from("a model's bytes")], [null, Buffer.alloc(0)], [Buffer.alloc(300, 7)]];
const EXPECTED: [number, number, string | null][] = [
  [0, 0, "12345678"],
  [0, 1, "a model's bytes"],
  [1, 0, null],
  [1, 1, ""],
  [2, 0, Buffer.alloc(300, 7).toString("latin1")],
];

describe("reading COPY's binary output (CopyBinaryReader)", () => {
  it("hands on every field, NULL and empty ones included, wherever the stream is cut", () => {
    const whole = copyStream(ROWS, 5);
    expect(read([whole])).toEqual({ fields: EXPECTED, rows: 3 });
    for (let cut = 1; cut < whole.length; cut++)
      expect(read([whole.subarray(0, cut), whole.subarray(cut)]), `cut at ${cut}`).toEqual({ fields: EXPECTED, rows: 3 });
    const random = seededRandom(3);
    for (let round = 0; round < 200; round++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < whole.length;) {
        const n = 1 + Math.floor(random() * 40);
        chunks.push(whole.subarray(at, at + n));
        at += n;
      }
      expect(read(chunks)).toEqual({ fields: EXPECTED, rows: 3 });
    }
  });

  it("reads an output of no rows", () => {
    expect(read([copyStream([])])).toEqual({ fields: [], rows: 0 });
  });

  it("refuses a stream without the signature, one that ends before its end marker, and bytes after it", () => {
    const whole = copyStream(ROWS);
    const bad = Buffer.from(whole);
    bad[0] = 0x41;
    expect(() => read([bad])).toThrow(/signature/);
    expect(() => read([whole.subarray(0, whole.length - 1)])).toThrow(/ended early/);
    expect(() => read([whole.subarray(0, 40)])).toThrow(/ended early/);
    expect(() => read([whole, Buffer.from([0])])).toThrow(/after the end/);
  });
});
