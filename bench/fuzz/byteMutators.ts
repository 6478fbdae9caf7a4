/** Mutations that ignore the body's format: bits flipped, bytes cut off or inserted, invalid UTF-8. */
import type { Prng } from "./prng.js";

const INVALID_UTF8 = [[0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x00], [0xef, 0xbb, 0xbf]];

type ByteMutator = (rng: Prng, b: Buffer) => Buffer;

const MUTATORS: Array<readonly [string, ByteMutator]> = [
  [
    "flip",
    (rng, b) => {
      const out = Buffer.from(b);
      for (let i = rng.int(1, 8); i > 0 && out.length > 0; i--) out[rng.int(0, out.length - 1)] ^= 1 << rng.int(0, 7);
      return out;
    },
  ],
  ["truncate", (rng, b) => b.subarray(0, rng.int(0, Math.max(0, b.length - 1)))],
  [
    "insert",
    (rng, b) => {
      const at = rng.int(0, b.length);
      return Buffer.concat([b.subarray(0, at), rng.bytes(rng.int(1, 16)), b.subarray(at)]);
    },
  ],
  [
    "invalid-utf8",
    (rng, b) => {
      // Inside a string literal when there is one, so that the JSON still parses (the bytes become U+FFFD).
      const quote = b.indexOf(0x22, rng.int(0, Math.max(0, b.length - 1)));
      const at = quote === -1 ? rng.int(0, b.length) : quote + 1;
      return Buffer.concat([b.subarray(0, at), Buffer.from(rng.pick(INVALID_UTF8)), b.subarray(at)]);
    },
  ],
  ["repeat", (rng, b) => Buffer.concat(Array.from({ length: rng.int(2, 4) }, () => b))],
  ["random", (rng) => rng.bytes(rng.int(0, 4096))],
];

export function mutateBytes(rng: Prng, body: Buffer): { kind: string; body: Buffer } {
  const [name, mutate] = rng.pick(MUTATORS);
  return { kind: `bytes.${name}`, body: mutate(rng, body) };
}
