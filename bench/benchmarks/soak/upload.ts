/**
 * The soak's one bulk upload: a CSV of existing items (ids repeat, so the catalog keeps its size and the rows
 * are updates with new prices) sent to POST /v1/upload/items with the organisation's dashboard token.
 */
import { itemId, topicOf, type SyntheticSpec } from "../../kit/synthetic.js";
import { call } from "../../kit/api.js";

export type UploadOutcome = Awaited<ReturnType<typeof uploadItems>>;

export function catalogCsv(spec: SyntheticSpec, rows: number): string {
  const lines = ["item_id,item_type,status,price,brand,topic"];
  for (let r = 0; r < rows; r++) {
    const i = r % spec.items;
    lines.push(`${itemId(i)},product,active,${((r * 7919) % 20000) / 100},brand-${i % 50},topic-${topicOf(spec, i)}`);
  }
  return lines.join("\n") + "\n";
}

export async function uploadItems(url: string, token: string, csv: string, rows: number) {
  const started = performance.now();
  const r = await call(`${url}/v1/upload/items`, { token, body: csv, contentType: "text/csv" });
  const seconds = (performance.now() - started) / 1000;
  const accepted = Number(r.json?.data?.accepted ?? 0);
  const rejected = Number(r.json?.data?.rejected ?? 0);
  return {
    rows,
    bytes: Buffer.byteLength(csv),
    status: r.status,
    accepted,
    rejected,
    seconds,
    ok: r.status === 202 && accepted === rows && rejected === 0,
    ...(r.status !== 202 ? { message: r.text.slice(0, 300) } : {}),
  };
}
