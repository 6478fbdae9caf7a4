import { randomFillSync } from "node:crypto";

/** Random bytes drawn in blocks: one system call per 256 ids rather than one per id. */
const pool = new Uint8Array(10 * 256);
let used = pool.length;
const HEX = new TextEncoder().encode("0123456789abcdef");
/** The id's text is assembled here and read out as one string: no piece of it is a string of its own. */
const text = Buffer.alloc(36, "-");
/** Where each of the 16 bytes' two hex digits go (the dashes stay where they are). */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The millisecond whose digits the text holds: ids of the same millisecond share them. */
let writtenMs = -1;

/**
 * A UUIDv7 (RFC 9562): 48 bits of milliseconds, then random bits. Served recommendations are keyed by this id,
 * and ids that grow with time land at the right edge of that index instead of at random pages of it, which
 * keeps the attribution log cheap for PostgreSQL at thousands of recommendations per second.
 */
export function recommendationId(nowMs = Date.now()): string {
  if (used + 10 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const r = used;
  used += 10;
  if (nowMs !== writtenMs) writeMs(nowMs);
  hex(6, 0x70 | (pool[r]! & 0x0f));
  hex(7, pool[r + 1]!);
  hex(8, 0x80 | (pool[r + 2]! & 0x3f));
  for (let k = 9; k < 16; k++) hex(k, pool[r + k - 6]!);
  return text.toString("latin1", 0, 36);
}

/** The 48-bit millisecond count, big-endian, as the first six bytes (division: it exceeds 32 bits). */
function writeMs(nowMs: number): void {
  writtenMs = nowMs;
  let rest = nowMs;
  for (let k = 5; k >= 0; k--) {
    hex(k, rest % 256);
    rest = Math.floor(rest / 256);
  }
}

function hex(k: number, byte: number): void {
  text[AT[k]!] = HEX[byte >> 4]!;
  text[AT[k]! + 1] = HEX[byte & 15]!;
}
