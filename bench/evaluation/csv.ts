import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { familyOf } from "../../src/client/families.js";

/** One row of the interactions file. */
export interface Interaction {
  user: string;
  item: string;
  name: string;
  /** The family when the file has an `event_family` column, else inferred from the name. */
  family: string;
  atMs: number;
}

const REQUIRED = ["user_id", "item_id", "event_name", "timestamp"] as const;
/** MovieLens `ratings.csv` (userId,movieId,rating,timestamp in epoch seconds): every rating is an engagement. */
const MOVIELENS = ["userid", "movieid", "rating", "timestamp"] as const;
const RATING_EVENT = "rate";

/** Epoch milliseconds from either an integer (epoch ms) or an ISO 8601 string. */
function parseTimestamp(text: string): number {
  const t = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(t)) throw new Error(`unreadable timestamp: ${JSON.stringify(text)}`);
  return t;
}

/** Splits one CSV line (RFC 4180 quoting, since ids exported from spreadsheets may hold commas). */
function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let field = "";
  let quoted = false;
  for (let k = 0; k < line.length; k++) {
    const ch = line[k]!;
    if (quoted) {
      if (ch === '"' && line[k + 1] === '"') {
        field += '"';
        k++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      out.push(field);
      field = "";
    } else field += ch;
  }
  out.push(field);
  return out;
}

/**
 * Reads `user_id,item_id,event_name,timestamp` (header row first; column order free; extra columns ignored), or
 * MovieLens `userId,movieId,rating,timestamp`, whose ratings all become `rate` events (whatever the stars).
 */
export async function readInteractions(file: string): Promise<Interaction[]> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  const out: Interaction[] = [];
  let columns: Record<string, number> | undefined;
  let movieLens = false;
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    const line = raw.trim();
    if (line === "") continue;
    const fields = splitCsvLine(line);
    if (!columns) {
      columns = Object.fromEntries(fields.map((name, k) => [name.trim().toLowerCase(), k]));
      movieLens = MOVIELENS.every((c) => columns![c] !== undefined);
      const missing = REQUIRED.filter((c) => columns![c] === undefined);
      if (missing.length && !movieLens) throw new Error(`${file}: header lacks ${missing.join(", ")} (or MovieLens ${MOVIELENS.join(",")})`);
      continue;
    }
    if (movieLens) {
      out.push(movieLensRow(fields, columns, `${file}:${lineNo}`));
      continue;
    }
    const get = (c: string) => (columns![c] === undefined ? "" : (fields[columns![c]!] ?? "").trim());
    const user = get("user_id");
    const name = get("event_name");
    if (!user || !name) throw new Error(`${file}:${lineNo}: user_id and event_name are required`);
    let atMs: number;
    try {
      atMs = parseTimestamp(get("timestamp"));
    } catch (err) {
      throw new Error(`${file}:${lineNo}: ${(err as Error).message}`, { cause: err });
    }
    out.push({ user, item: get("item_id"), name, family: get("event_family") || familyOf(name), atMs });
  }
  return out;
}

function movieLensRow(fields: string[], columns: Record<string, number>, where: string): Interaction {
  const user = fields[columns["userid"]!]?.trim() ?? "";
  const item = fields[columns["movieid"]!]?.trim() ?? "";
  const seconds = Number(fields[columns["timestamp"]!]);
  if (!user || !item || !Number.isFinite(seconds)) throw new Error(`${where}: userId, movieId and a timestamp in seconds are required`);
  return { user, item, name: RATING_EVENT, family: "engagement", atMs: seconds * 1000 };
}
