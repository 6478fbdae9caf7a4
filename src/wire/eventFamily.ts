/**
 * An event's family (`event_family`) as a number, the one spelling the threads use: a shard skips exposures by
 * it, the index records engagements and conversions under it (the `kind` of a history row, kept in index
 * snapshots: the numbers must not change).
 */
export const FAMILY = { other: 0, engagement: 1, conversion: 2, exposure: 3 } as const;

/** The family named by `text` (an event_family value); FAMILY.other for any other name. */
export function familyOf(text: string): number {
  switch (text) {
    case "engagement":
      return FAMILY.engagement;
    case "conversion":
      return FAMILY.conversion;
    case "exposure":
      return FAMILY.exposure;
    default:
      return FAMILY.other;
  }
}

const ENGAGEMENT = Buffer.from("engagement");
const CONVERSION = Buffer.from("conversion");
const EXPOSURE = Buffer.from("exposure");

/** familyOf() for the text whose UTF-8 bytes are `bytes[at, at + n)` (read in place from a packed batch). */
export function familyOfBytes(bytes: Uint8Array, at: number, n: number): number {
  if (sameWord(bytes, at, n, ENGAGEMENT)) return FAMILY.engagement;
  if (sameWord(bytes, at, n, CONVERSION)) return FAMILY.conversion;
  if (sameWord(bytes, at, n, EXPOSURE)) return FAMILY.exposure;
  return FAMILY.other;
}

/** Whether `bytes[at, at + n)` spells `word`. */
export function sameWord(bytes: Uint8Array, at: number, n: number, word: Uint8Array): boolean {
  if (n !== word.length) return false;
  for (let i = 0; i < n; i++) if (bytes[at + i] !== word[i]) return false;
  return true;
}
