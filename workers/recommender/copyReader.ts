import { StringDecoder } from "node:string_decoder";
import type pg from "pg";
import copyStreams from "pg-copy-streams";

/** Streams the rows of `COPY (query) TO STDOUT` (text format) to `onRow`, one array of fields (null for \N) each. */
export async function readCopy(client: pg.Client, query: string, onRow: (fields: (string | null)[]) => void): Promise<number> {
  const stream = client.query(copyStreams.to(`COPY (${query}) TO STDOUT`));
  const decoder = new StringDecoder("utf8");
  let carry = "";
  let rows = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = carry + decoder.write(chunk);
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      onRow(splitFields(text.slice(from, nl)));
      rows++;
      from = nl + 1;
    }
    carry = text.slice(from);
  }
  return rows;
}

function splitFields(line: string): (string | null)[] {
  return line.split("\t").map((f) => (f === "\\N" ? null : f.includes("\\") ? unescapeCopy(f) : f));
}

const ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" };

/** Undoes COPY text escaping (backslash sequences; identifiers and JSON may contain backslashes). */
function unescapeCopy(f: string): string {
  return f.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c);
}
