import type pg from "pg";
import { move, transferableSymbol, valueSymbol, workerData } from "piscina";
import { COPY_LOG_BINARY, INSERT_LOG, logRowMessages } from "../../src/wire/batchLog.js";
import { unpackBatch } from "../../src/wire/batchPack.js";
import { attributesJson } from "../../src/wire/attributeBytes.js";
import type { BatchPayload, ItemRow } from "../../src/wire/batchRows.js";
import type { WriterThreadData } from "../../src/wire/threadData.js";
import type { UsageRow, WriteResult, WriteTask } from "../../src/wire/writeTasks.js";
import { isQuotaExceeded, isUnavailable, isUniqueViolation } from "../../src/wire/pgErrors.js";
import { WriterConnection } from "./connection.js";
import { copyRows } from "./copyText.js";
import * as sql from "./merge.js";
import { directEventsCopy, reuseEventsCopy, type EventsCopy } from "./eventsCopy.js";
import { applyIdentifies, isIdentify } from "./identify.js";
import { copyMessage, PipelinedCopy } from "./pipelinedCopy.js";

const { quotas } = workerData as WriterThreadData;
const connection = new WriterConnection("recsvc-writer", async (c) => {
  await c.query(sql.STAGING_DDL);
  await c.query(sql.SET_QUOTAS, [String(quotas.items), String(quotas.users), String(quotas.attributeBytes)]);
});

/**
 * CLUSTER=1: the process's uuid. Each batch is then logged for the other processes in the transaction that
 * writes it (src/wire/batchLog.ts), so a batch is logged exactly when it is committed, and the row carries the
 * transaction's id. The direct COPY, already one simple query of two statements (the events, their ids), gets a
 * third, the log row's COPY: still one implicit transaction, one round trip and one commit.
 */
const announceAs = (workerData as WriterThreadData).announceAs;
const DIRECT_STATEMENT = announceAs === undefined ? sql.COPY_EVENTS_DIRECT_BINARY : `${sql.COPY_EVENTS_DIRECT_BINARY}; ${COPY_LOG_BINARY}`;

function copyInto(c: pg.Client, statement: string, text: string): Promise<void> {
  return new PipelinedCopy(copyMessage(statement, text)).run(c);
}

/**
 * After a batch met an event id already stored, this writer merges (staging + ON CONFLICT) for the next few
 * batches before it tries the direct path again: a client retrying a stretch of requests then costs one
 * wasted COPY per stretch, not one per batch.
 */
const MERGE_AFTER_CONFLICT = 16;
let mergeBatchesLeft = 0;

/** The batch's events' ids as `event_ids` rows (COPY text). */
function idRows(events: BatchPayload["events"]): string {
  let text = "";
  for (const e of events) text += `${e[0]}\t${e[1]}\n`;
  return text;
}

/** `org/event_id` in the database's spelling of a uuid (lower case), whatever the client's. */
function eventKey(org: number, eventId: string): string {
  return `${org}/${eventId.toLowerCase()}`;
}

/** True when two events of the batch share (organisation, event_id): the direct COPY would refuse the batch. */
function hasRepeatedIds(events: BatchPayload["events"]): boolean {
  const seen = new Set<string>();
  for (const e of events) {
    const key = eventKey(e[0], e[1]);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/** Positions of the events the merge did not store: ids the database already held, and repeats within the batch. */
function positionsNotStored(events: BatchPayload["events"], held: ReadonlyArray<{ org: number; event_id: string }>): number[] {
  const skip = new Set(held.map((r) => eventKey(r.org, r.event_id)));
  const out: number[] = [];
  for (let i = 0; i < events.length; i++) {
    const key = eventKey(events[i]![0], events[i]![1]);
    if (skip.has(key)) out.push(i);
    else skip.add(key);
  }
  return out;
}

/** Items as stage_items' columns: the attributes' JSON text once, and its size for the organisation's usage. */
function itemStageRows(items: readonly ItemRow[]): unknown[][] {
  return items.map((r) => {
    const json = attributesJson(r[4]);
    return [r[0], r[1], r[2], r[3], json, r[5], Buffer.byteLength(json)];
  });
}

/** The organisations whose items or users the batch writes. */
function recordOrgs(batch: BatchPayload): number[] {
  const orgs = new Set<number>();
  for (const r of batch.items) orgs.add(r[0]);
  for (const r of batch.users) orgs.add(r[0]);
  return [...orgs];
}

interface Written {
  notStored: number[];
  usage: UsageRow[] | undefined;
}

/**
 * Writes one batch in one transaction; resolves once it is committed with the positions of the events the
 * index must skip (those it did not store, none on the direct path, which stores all or fails, and the
 * identify events it refused), and the usage of the organisations whose items or users it wrote.
 *
 * Events take one of two paths. Direct: COPY straight into `events`, and their ids into `event_ids`, whose
 * primary key (org, event_id) refuses the whole transaction if any id is already held (every id of the dedup
 * window), so dedup stays exact, and PostgreSQL's multi-row COPY insert costs about half of an INSERT … ON
 * CONFLICT per row. Merge: COPY into the staging table, then ids and events by INSERT … ON CONFLICT DO NOTHING,
 * used when the direct COPY met a duplicate (the batch is then written again this way). The usual batch, events
 * only, does not come here: storedDirectly writes it in one simple query.
 */
async function writeRows(c: pg.Client, batch: BatchPayload, direct: boolean, packed: Uint8Array): Promise<Written> {
  const identifies = batch.events.some(isIdentify);
  await c.query("BEGIN");
  try {
    let notStored: number[] = [];
    if (batch.events.length > 0) {
      if (direct) {
        await copyInto(c, sql.COPY_EVENTS_DIRECT, copyRows(batch.events));
        await copyInto(c, sql.COPY_EVENT_IDS, idRows(batch.events));
      } else {
        await copyInto(c, sql.COPY_EVENTS, copyRows(batch.events));
        notStored = positionsNotStored(batch.events, (await c.query<{ org: number; event_id: string }>(sql.MERGE_EVENTS)).rows);
      }
    }
    if (batch.items.length > 0) {
      await copyInto(c, sql.COPY_ITEMS, copyRows(itemStageRows(batch.items), true));
      await c.query(sql.MERGE_ITEMS);
    }
    if (batch.users.length > 0) {
      await copyInto(c, sql.COPY_USERS, copyRows(batch.users, true));
      await c.query(sql.MERGE_USERS);
    }
    let usage: UsageRow[] | undefined;
    if (batch.items.length > 0 || batch.users.length > 0) {
      usage = (await c.query<UsageRow>({ text: sql.READ_USAGE, values: [recordOrgs(batch)], rowMode: "array" })).rows;
    }
    // After the users (the index applies a batch's users before its events, and the rule looks at them), and
    // last: its lock per organisation is then held only until the commit that follows.
    const refused = identifies ? await applyIdentifies(c, batch.events, notStored) : [];
    const skipped = refused.length === 0 ? notStored : [...notStored, ...refused].sort((a, b) => a - b);
    if (announceAs !== undefined) {
      await c.query(INSERT_LOG, [announceAs, Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength), skipped.length > 0 ? skipped : null]);
    }
    await c.query("COMMIT");
    return { notStored: skipped, usage };
  } catch (err) {
    // The caller retries a unique violation on the merge path; a quota refusal is an answer, not a broken connection.
    if (isUniqueViolation(err) || isQuotaExceeded(err)) await c.query("ROLLBACK");
    throw err;
  }
}

/**
 * The usual batch, events only, COPYed from its packed bytes without unpacking it (eventsCopy.ts). False when
 * an event id was already stored: nothing was, and the batch goes the merge way.
 */
async function storedDirectly(c: pg.Client, copy: EventsCopy, packed: Uint8Array): Promise<boolean> {
  try {
    // After a failed COPY PostgreSQL ignores the CopyData and CopyDone that follow (not in copy mode then); a
    // failed second COPY (an id already held) rolls the first back: one simple query is one transaction.
    await new PipelinedCopy(copy.message, announceAs === undefined ? [copy.ids] : [copy.ids, ...logRowMessages(announceAs, packed)]).run(c);
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
  reuseEventsCopy(copy);
  return true;
}

/** Writes a batch that needs its values: items, users, identify events, ids repeated within it, merges. */
async function writeUnpacked(c: pg.Client, batch: BatchPayload, directFailed: boolean, packed: Uint8Array): Promise<WriteResult> {
  let written: Written | undefined;
  if (!directFailed && batch.events.length > 0 && mergeBatchesLeft === 0 && !hasRepeatedIds(batch.events)) {
    try {
      written = await writeRows(c, batch, true, packed);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      mergeBatchesLeft = MERGE_AFTER_CONFLICT;
    }
  } else if (!directFailed && mergeBatchesLeft > 0) {
    mergeBatchesLeft--;
  }
  written ??= await writeRows(c, batch, false, packed);
  return {
    ok: true,
    events: batch.events.length,
    items: batch.items.length,
    users: batch.users.length,
    notStored: written.notStored.length > 0 ? written.notStored : undefined,
    usage: written.usage,
  };
}

/**
 * Writes one batch (see writeRows). The caller acknowledges its requests only after this resolves ok; a batch
 * written comes back with its bytes, moved, for the front thread to move on to the shards.
 */
export default async function write(task: WriteTask): Promise<WriteResult> {
  const result = await written(task);
  return result.ok ? (handedBack(result, task.payload) as unknown as WriteResult) : result;
}

/** The result with the task's bytes beside it, their memory moved rather than copied (piscina's Transferable). */
function handedBack(result: WriteResult, payload: Uint8Array<ArrayBuffer>): unknown {
  return move({
    get [transferableSymbol]() {
      return [payload.buffer];
    },
    get [valueSymbol]() {
      return { ...result, payload };
    },
  });
}

async function written(task: WriteTask): Promise<WriteResult> {
  let c: pg.Client | undefined;
  try {
    c = await connection.get();
    const direct = mergeBatchesLeft === 0 ? directEventsCopy(task.payload, DIRECT_STATEMENT) : undefined;
    if (direct && (await storedDirectly(c, direct, task.payload))) return { ok: true, events: direct.events, items: 0, users: 0 };
    if (direct) mergeBatchesLeft = MERGE_AFTER_CONFLICT;
    return await writeUnpacked(c, unpackBatch(task.payload), direct !== undefined, task.payload);
  } catch (err) {
    if (isQuotaExceeded(err)) return { ok: false, unavailable: false, message: (err as Error).message, quotaExceeded: true };
    if (c) connection.drop(c);
    return { ok: false, unavailable: isUnavailable(err), message: (err as Error).message };
  }
}
