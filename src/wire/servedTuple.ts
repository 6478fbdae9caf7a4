import type { ByteWriter } from "./byteWriter.js";

/**
 * A served row as one tuple of PostgreSQL's binary COPY format, written straight into the attribution buffer:
 * the writer thread streams the buffer to `COPY served_recommendations … (FORMAT binary)` as it is. Against the
 * text format this spares the writer thread decoding and formatting every row, and PostgreSQL parsing the id
 * and the timestamp (figures in docs/recommender.md, Attribution).
 *
 * Fields, in the COPY's column order: org int4, recommendation_id uuid, strategy text, scenario text, mode text,
 * user_id text, context_item_id text, items json, served_at timestamptz, experiment_id uuid, variant text. Each is a
 * 4-byte length (-1: NULL), then its bytes. `enrolment`: the experiment and variant the request was served under, if any.
 */
export function writeServedTuple(
  w: ByteWriter,
  org: number,
  id: string,
  strategy: string,
  scenario: string,
  mode: string,
  userId: string | undefined,
  contextItemId: string | undefined,
  items: Uint8Array,
  servedAtMs: number,
  enrolment: ServedEnrolment | undefined,
): void {
  w.uint16(FIELDS).uint32(4).uint32(org);
  uuid(w.uint32(16), id);
  w.sizedText(strategy).sizedText(scenario).sizedText(mode);
  optionalText(w, userId);
  optionalText(w, contextItemId);
  w.uint32(items.length).bytes(items);
  timestamp(w.uint32(8), servedAtMs);
  if (enrolment === undefined) w.uint32(NULL_LENGTH).uint32(NULL_LENGTH);
  else {
    uuid(w.uint32(16), enrolment.experimentId);
    w.sizedText(enrolment.variant);
  }
}

/** The experiment (its id, a UUID) and the variant's name a served row was shaped by. */
export interface ServedEnrolment {
  experimentId: string;
  variant: string;
}

const FIELDS = 11;
const NULL_LENGTH = 0xffffffff;
/** PostgreSQL counts time in microseconds from 2000-01-01 UTC. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_32 = 2 ** 32;

function optionalText(w: ByteWriter, s: string | undefined): void {
  if (s === undefined) w.uint32(NULL_LENGTH);
  else w.sizedText(s);
}

/** int64 big-endian: milliseconds times a thousand stay exact in a double until the year 287,000. */
function timestamp(w: ByteWriter, ms: number): void {
  const us = (ms - PG_EPOCH_MS) * 1000;
  const high = Math.floor(us / TWO_32);
  w.uint32(high >>> 0).uint32(us - high * TWO_32);
}

/** Where each byte's two hex digits start in the canonical 8-4-4-4-12 spelling, and where its dashes are. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASH_AT = [8, 13, 18, 23];

/** The 16 bytes of a UUID in its canonical spelling (as recommendationId writes it). */
function uuid(w: ByteWriter, id: string): void {
  if (id.length !== 36) throw new Error(`not a UUID: ${id}`);
  for (const i of DASH_AT) if (id.charCodeAt(i) !== 0x2d) throw new Error(`not a UUID: ${id}`);
  for (const i of HEX_AT) w.byte((hexDigit(id, i) << 4) | hexDigit(id, i + 1));
}

function hexDigit(id: string, i: number): number {
  const c = id.charCodeAt(i);
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  throw new Error(`not a UUID: ${id}`);
}
