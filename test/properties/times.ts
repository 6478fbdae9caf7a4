/**
 * The instant a timestamp the contract accepts names, in microseconds since 1970 (PostgreSQL's precision),
 * computed here rather than by the code under test. `exact` is false past six fraction digits: PostgreSQL
 * rounds those, so the stored value may differ by one microsecond.
 */
export function instantMicros(ts: string): { micros: bigint; exact: boolean } {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/.exec(ts);
  if (!m) throw new Error(`not a contract timestamp: ${ts}`);
  const [, y, mo, d, h, mi, s, fraction = "", sign, oh, om] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d)); // setUTCFullYear takes years below 100 as written
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const offsetMs = sign ? (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const micros = BigInt(fraction.padEnd(6, "0").slice(0, 6));
  return { micros: BigInt(date.getTime() - offsetMs) * 1000n + micros, exact: fraction.length <= 6 };
}

/** SQL that reads a timestamptz column as microseconds since 1970 (text, for bigint precision). */
export const micros = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;
