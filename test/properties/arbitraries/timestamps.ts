import fc from "fast-check";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** 0001-01-01T00:00:00 as wall-clock time (Date.UTC would read year 1 as 1901). */
const YEAR_ONE_MS = Date.parse("0001-01-01T00:00:00Z");
const YEAR_MAX_MS = Date.parse("9999-12-31T23:59:59Z");
/** Margins for the time that passes between generation and the server's check (a long run lasts minutes). */
const FUTURE_MARGIN_MS = 5 * MINUTE_MS;
const PAST_SLACK_MS = 2 * DAY_MS;

/** Offsets in minutes: UTC, the real world's range (−12:00..+14:00), odd ones, and ±15:59. */
const offsetMinutes = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, 60, -300, 330, 345, 525, -570, 840, -720, 959, -959) },
  { weight: 2, arbitrary: fc.integer({ min: -959, max: 959 }) },
);

const pad = (n: number, w: number) => String(Math.abs(n)).padStart(w, "0");

function zone(minutes: number, useZ: boolean): string {
  if (minutes === 0 && useZ) return "Z";
  return `${minutes < 0 ? "-" : "+"}${pad(Math.trunc(minutes / 60), 2)}:${pad(minutes % 60, 2)}`;
}

/** A wall-clock time (ms as if UTC) as `YYYY-MM-DDTHH:MM:SS`, year 0001..9999. */
function wallClock(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

const fraction = fc
  .oneof(
    { weight: 3, arbitrary: fc.constant("") },
    { weight: 2, arbitrary: fc.constantFrom(1, 3, 6).chain((n) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`))) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,12}$/) },
  )
  .map((d) => (d === "" ? "" : `.${d}`));

/**
 * Timestamps the contract accepts: `YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM)` from year 0001 (as written) to 24 h
 * in the future (less a margin), with offsets, fractions of any length, and the two ends favoured.
 */
export function validTimestamp(now = Date.now()): fc.Arbitrary<string> {
  const latestUtc = now + DAY_MS - FUTURE_MARGIN_MS;
  const wall = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: YEAR_ONE_MS, max: latestUtc }) },
    { weight: 1, arbitrary: fc.integer({ min: YEAR_ONE_MS, max: YEAR_ONE_MS + 2 * DAY_MS }) },
    { weight: 1, arbitrary: fc.integer({ min: latestUtc - DAY_MS, max: latestUtc }) },
    { weight: 1, arbitrary: fc.integer({ min: Date.parse("1969-12-30T00:00:00Z"), max: Date.parse("1970-01-02T00:00:00Z") }) },
  );
  return fc.record({ wall, offset: offsetMinutes, useZ: fc.boolean(), fraction }).map(({ wall: w, offset, useZ, fraction: f }) => {
    // The UTC instant is wall − offset (plus under a second of fraction): keep it no later than latestUtc.
    const wallMs = Math.min(w, latestUtc + offset * MINUTE_MS - 1000);
    return `${wallClock(Math.max(YEAR_ONE_MS, wallMs))}${f}${zone(offset, useZ)}`;
  });
}

/** Well-formed timestamps more than 24 h ahead (26 h and more, so that a long run stays on the far side). */
export function futureTimestamp(now = Date.now()): fc.Arbitrary<string> {
  return fc
    .integer({ min: now + DAY_MS + 2 * 60 * MINUTE_MS, max: YEAR_MAX_MS - PAST_SLACK_MS })
    .map((ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`);
}

/**
 * Well-formed timestamps whose UTC offset (±16:00..±23:59) lies beyond PostgreSQL's ±15:59. No real zone is
 * that far; the server refuses them (they used to fail the whole request with a 500).
 */
export const farOffsetTimestamp: fc.Arbitrary<string> = fc
  .record({
    hours: fc.integer({ min: 16, max: 23 }),
    minutes: fc.integer({ min: 0, max: 59 }),
    sign: fc.constantFrom("+", "-"),
    day: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ hours, minutes, sign, day }) => `2024-02-${pad(day, 2)}T12:00:00${sign}${pad(hours, 2)}:${pad(minutes, 2)}`);

/**
 * Values that are not timestamps in any reading of ISO 8601: impossible dates and times, year 0000 (PostgreSQL
 * has none; the contract starts at year 1), offsets of 24 h, truncations, other types. Spellings that ISO 8601
 * allows but the server refuses (basic format, no seconds, leap second 60, no zone) are left out: see the report.
 */
export const malformedTimestamp: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  "2024-13-01T00:00:00Z",
  "2024-00-10T00:00:00Z",
  "2024-01-32T00:00:00Z",
  "2023-02-29T00:00:00Z",
  "2024-04-31T00:00:00Z",
  "2024-01-01T25:00:00Z",
  "2024-01-01T00:61:00Z",
  "2024-01-01T00:00:61Z",
  "2024-01-01T00:00:00+24:00",
  "2024-01-01T00:00:00+01:60",
  "2024-01-01T00:00:00.Z",
  "0000-06-01T00:00:00Z",
  "2024-01-01T00:00:0Z",
  "24-01-01T00:00:00Z",
  "",
  "yesterday",
  "2024-01-01T00:00:00Zjunk",
  " 2024-01-01T00:00:00Z",
  1714557600,
  1714557600000,
  null,
  true,
  { at: "2024-01-01T00:00:00Z" },
);
