import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

const uploadCsv = (org: Org, csv: string) => call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: csv, contentType: "text/csv" });

async function storedItems(org: Org): Promise<Array<{ item_id: string; attributes: Record<string, unknown> }>> {
  const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
  return (await server.db().query("SELECT item_id, attributes FROM items WHERE org = $1 ORDER BY item_id", [seq])).rows;
}

/** A header of `columns` columns (the three item fields, then attributes a0, a1, …) and rows of short numbers. */
function wideCsv(columns: number, rows: number): string {
  const header = ["item_id", "item_type", "status", ...Array.from({ length: columns - 3 }, (_, i) => `a${i}`)];
  const lines = [header.join(",")];
  for (let r = 0; r < rows; r++)
    lines.push([`wide-${r}`, "product", "active", ...Array.from({ length: columns - 3 }, (_, i) => String(i % 10))].join(","));
  return lines.join("\n") + "\n";
}

describe("CSV column cap (UPLOAD_MAX_COLUMNS, 1,000 by default)", () => {
  it("answers 400 validation_error naming the limit for a header of 1,001 columns, and stores nothing", async () => {
    const org = await newOrg(server.url);
    const r = await uploadCsv(org, wideCsv(1001, 3));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
    expect(r.body.message).toContain("more than 1000 columns");
    expect(r.body.message).toContain("UPLOAD_MAX_COLUMNS");
    expect(await storedItems(org)).toEqual([]);
  });

  it("refuses a header of 200,003 columns the same way, at its 1,001st column", async () => {
    const org = await newOrg(server.url);
    const r = await uploadCsv(org, wideCsv(200_003, 0) + "x,product,active\n");
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("more than 1000 columns");
    expect(await storedItems(org)).toEqual([]);
  });

  it("stores the rows of a 1,000-column CSV, with 997 attributes each", async () => {
    const org = await newOrg(server.url);
    const r = await uploadCsv(org, wideCsv(1000, 3));
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.data).toEqual({ accepted: 3, rejected: 0, errors: [] });
    const items = await storedItems(org);
    expect(items.map((i) => i.item_id)).toEqual(["wide-0", "wide-1", "wide-2"]);
    expect(Object.keys(items[0]!.attributes)).toHaveLength(997);
    expect(items[0]!.attributes.a996).toBe(6);
  });
});
