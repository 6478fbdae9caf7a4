/** Reads back served rows written as binary COPY tuples (src/wire/servedTuple.ts), for tests. */
export interface ServedTupleRow {
  org: number;
  id: string;
  strategy: string;
  scenario: string;
  mode: string;
  userId: string | null;
  contextItemId: string | null;
  items: string;
  servedAtMs: number;
  experimentId: string | null;
  variant: string | null;
}

const PG_EPOCH_MS = Date.UTC(2000, 0, 1);

export function readServedTuples(bytes: Uint8Array): ServedTupleRow[] {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rows: ServedTupleRow[] = [];
  let at = 0;
  const field = (): Buffer | null => {
    const n = b.readInt32BE(at);
    at += 4;
    if (n === -1) return null;
    at += n;
    return b.subarray(at - n, at);
  };
  const text = () => field()?.toString("utf8") ?? null;
  while (at < b.length) {
    const count = b.readUInt16BE(at);
    at += 2;
    if (count !== 11) throw new Error(`tuple with ${count} fields at byte ${at - 2}`);
    const org = field()!.readInt32BE(0);
    const id = uuid(field()!);
    const [strategy, scenario, mode, userId, contextItemId, items] = [text()!, text()!, text()!, text(), text(), text()!];
    const servedAtMs = Number(field()!.readBigInt64BE(0) / 1000n) + PG_EPOCH_MS;
    const experiment = field();
    const experimentId = experiment === null ? null : uuid(experiment);
    const variant = text();
    rows.push({ org, id, strategy, scenario, mode, userId, contextItemId, items, servedAtMs, experimentId, variant });
  }
  return rows;
}

function uuid(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
