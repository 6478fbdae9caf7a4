import { existsSync, statSync, createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Interaction } from "./csv.js";
import type { HeldOutUser, Split } from "./split.js";

/**
 * A published split in the layout of NGCF and LightGCN (Gowalla, Yelp2018, Amazon-Book): a folder holding
 * `train.txt` and `test.txt`, one line per user, `user item item …` (0-based ids), every pair one implicit
 * positive, no time. Published figures train on train.txt and rank, for every user of test.txt, every item they
 * did not interact with in training, Recall@20 and NDCG@20.
 */
export interface GivenSplit {
  split: Split;
  /** Every item of either file: the catalog the published protocol ranks. */
  items: string[];
  rows: number;
}

/** The event each pair is replayed as: an engagement of weight 1, as an implicit positive is. */
const PAIR_EVENT = "view";
/** The split has no time: every pair is replayed at this moment, in file order. */
const SPLIT_TIME_MS = Date.UTC(2024, 0, 1);

/** True when `path` is such a folder. */
export function isGivenSplit(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory() && existsSync(join(path, "train.txt")) && existsSync(join(path, "test.txt"));
}

async function readLines(file: string, each: (user: string, items: string[]) => void): Promise<void> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    const fields = raw.trim().split(/\s+/);
    if (fields[0] === "") continue;
    if (!fields.every((f) => /^\d+$/.test(f))) throw new Error(`${file}:${lineNo}: expected "user item item …" (whole numbers)`);
    each(fields[0]!, fields.slice(1));
  }
}

export async function readGivenSplit(dir: string): Promise<GivenSplit> {
  const train: Interaction[] = [];
  const items = new Set<string>();
  await readLines(join(dir, "train.txt"), (user, list) => {
    for (const item of list) {
      items.add(item);
      train.push({ user, item, name: PAIR_EVENT, family: "engagement", atMs: SPLIT_TIME_MS });
    }
  });
  const users: HeldOutUser[] = [];
  let rows = train.length;
  await readLines(join(dir, "test.txt"), (user, list) => {
    if (list.length === 0) return;
    for (const item of list) items.add(item);
    rows += list.length;
    users.push({ user, relevant: [...new Set(list)], novel: [...new Set(list)] });
  });
  return { split: { train, users, nowMs: SPLIT_TIME_MS }, items: [...items], rows };
}
