/** A PostgreSQL snapshot (pg_current_snapshot()'s text, `xmin:xmax:xip,…`), read to test transaction ids against it. */
export interface XidSnapshot {
  xmin: bigint;
  xmax: bigint;
  inProgress: ReadonlySet<bigint>;
}

export function parseXidSnapshot(text: string): XidSnapshot {
  const m = /^(\d+):(\d+):([\d,]*)$/.exec(text);
  if (!m) throw new Error(`not a snapshot: ${text}`);
  return { xmin: BigInt(m[1]!), xmax: BigInt(m[2]!), inProgress: new Set(m[3] ? m[3].split(",").map(BigInt) : []) };
}

/**
 * Whether the work of a transaction known to have committed is visible in the snapshot (PostgreSQL's
 * pg_visible_in_snapshot for a committed id): it had ended before the snapshot was taken.
 */
export function committedBefore(snapshot: XidSnapshot, xid: bigint): boolean {
  return xid < snapshot.xmin || (xid < snapshot.xmax && !snapshot.inProgress.has(xid));
}
