import type { ByteWriter } from "./byteWriter.js";

/**
 * A served row (workers/writer/served.ts ServedRow) as msgpack, written straight into the attribution buffer:
 * the writer threads read it back with msgpackr, but packing through msgpackr made a buffer per row (a
 * tenth of the front thread's work on shared answers). Same wire format: an 8-element array of
 * int, str, str, str, str|nil, str|nil, bin, float64.
 */
export function packServedRow(
  w: ByteWriter, org: number, id: string, strategy: string, mode: string, userId: string | undefined,
  contextItemId: string | undefined, items: Uint8Array, servedAtMs: number,
): void {
  w.byte(0x98);
  uint(w, org);
  str(w, id);
  str(w, strategy);
  str(w, mode);
  optionalStr(w, userId);
  optionalStr(w, contextItemId);
  bin(w, items);
  w.byte(0xcb).float64(servedAtMs);
}

function uint(w: ByteWriter, n: number): void {
  if (n < 0x80) w.byte(n);
  else w.byte(0xce).uint32(n);
}

function optionalStr(w: ByteWriter, s: string | undefined): void {
  if (s === undefined) w.byte(0xc0);
  else str(w, s);
}

function str(w: ByteWriter, s: string): void {
  const n = Buffer.byteLength(s);
  if (n < 32) w.byte(0xa0 | n);
  else if (n < 0x100) w.byte(0xd9).byte(n);
  else w.byte(0xdb).uint32(n);
  w.text(s);
}

function bin(w: ByteWriter, b: Uint8Array): void {
  if (b.length < 0x100) w.byte(0xc4).byte(b.length);
  else w.byte(0xc6).uint32(b.length);
  w.bytes(b);
}
