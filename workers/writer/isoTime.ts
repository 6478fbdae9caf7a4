/** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC), the origin of a binary timestamptz. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/**
 * A timestamp as the schema accepts it (`YYYY-MM-DDTHH:MM:SS[.ffffff](Z|±HH:MM)`) given as ASCII bytes, in
 * microseconds since 2000-01-01 UTC, as PostgreSQL's binary timestamptz holds it. Undefined for any other
 * spelling (more than six fraction digits, a year below 100, a day the month lacks, …): the caller then lets
 * PostgreSQL parse the text.
 */
export function postgresMicros(bytes: Uint8Array, at: number, n: number): bigint | undefined {
  if (n < 20 || bytes[at + 4] !== 0x2d || bytes[at + 7] !== 0x2d || bytes[at + 10] !== 0x54 || bytes[at + 13] !== 0x3a || bytes[at + 16] !== 0x3a) {
    return undefined;
  }
  const year = digits(bytes, at, 4);
  const month = digits(bytes, at + 5, 2);
  const day = digits(bytes, at + 8, 2);
  const hour = digits(bytes, at + 11, 2);
  const minute = digits(bytes, at + 14, 2);
  const second = digits(bytes, at + 17, 2);
  // Written so that NaN (a byte that is not a digit) fails too.
  if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)) return undefined;
  let i = at + 19;
  const end = at + n;
  let micros = 0;
  if (bytes[i] === 0x2e) {
    const from = ++i;
    while (i < end && bytes[i]! >= 0x30 && bytes[i]! <= 0x39) i++;
    const places = i - from;
    if (places < 1 || places > 6) return undefined;
    micros = digits(bytes, from, places) * 10 ** (6 - places);
  }
  let offsetMinutes = 0;
  if (i === end - 1 && bytes[i] === 0x5a) {
    // Z
  } else if (i === end - 6 && (bytes[i] === 0x2b || bytes[i] === 0x2d) && bytes[i + 3] === 0x3a) {
    const oh = digits(bytes, i + 1, 2);
    const om = digits(bytes, i + 4, 2);
    if (!(oh <= 23 && om <= 59)) return undefined;
    offsetMinutes = (bytes[i] === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else {
    return undefined;
  }
  const date = Date.UTC(year, month - 1, day);
  const check = new Date(date);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined;
  const ms = date + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 - POSTGRES_EPOCH_MS;
  return BigInt(ms) * 1000n + BigInt(micros);
}

/** The decimal number of `n` ASCII digits at `bytes[at]`; NaN (failing every comparison) when one is not a digit. */
function digits(bytes: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = bytes[i]! - 0x30;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
}
