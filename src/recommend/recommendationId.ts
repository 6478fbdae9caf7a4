import { randomFillSync } from "node:crypto";

/** Random bytes drawn in blocks: one system call per 256 ids rather than one per id. */
const pool = new Uint8Array(10 * 256);
let used = pool.length;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

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
  let time = "";
  for (let shift = 40; shift >= 0; shift -= 8) time += HEX[Math.floor(nowMs / 2 ** shift) % 256];
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-${HEX[0x70 | (pool[r]! & 0x0f)]}${HEX[pool[r + 1]!]}-` +
    `${HEX[0x80 | (pool[r + 2]! & 0x3f)]}${HEX[pool[r + 3]!]}-` +
    `${HEX[pool[r + 4]!]}${HEX[pool[r + 5]!]}${HEX[pool[r + 6]!]}${HEX[pool[r + 7]!]}${HEX[pool[r + 8]!]}${HEX[pool[r + 9]!]}`
  );
}
