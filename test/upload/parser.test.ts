import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** The record cap: one CSV row, NDJSON line or JSON array element may be 1 MiB of UTF-8, not a byte more. */
const CAP = 1024 * 1024;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

const upload = (org: Org, body: string, contentType: string) =>
  call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: Buffer.from(body), contentType });

async function storedIds(org: Org): Promise<string[]> {
  const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
  return (await server.db().query("SELECT item_id FROM items WHERE org = $1 ORDER BY item_id", [seq])).rows.map((r) => r.item_id);
}

/**
 * A valid item of exactly `bytes` bytes of UTF-8: 2,000 'é' (two bytes each, so a cap counted in characters
 * would let a longer one through) in an attribute, then white space inside the object up to the size.
 */
function itemOf(bytes: number, id: string): string {
  const head = `{"item_id":"${id}","item_type":"t","status":"active","attributes":{"name":"${"é".repeat(2000)}"}`;
  return head + " ".repeat(bytes - Buffer.byteLength(head) - 1) + "}";
}

/** A CSV row of exactly `bytes` bytes: fields, then one attribute cell of 'é' and 'x' (too large an attribute for the schema). */
function rowOf(bytes: number, id: string): string {
  const head = `${id},t,active,${"é".repeat(2000)}`;
  return head + "x".repeat(bytes - Buffer.byteLength(head));
}

describe("the record cap, exact in bytes for every format", () => {
  it("stores an NDJSON line of exactly 1 MiB and refuses one of 1 MiB + 1 byte with 413 naming its line", async () => {
    const org = await newOrg(server.url);
    const atCap = await upload(org, `${itemOf(CAP, "at-cap")}\r\n{"item_id":"after","item_type":"t","status":"active"}\n`, "application/x-ndjson");
    expect(atCap.status, JSON.stringify(atCap.body).slice(0, 300)).toBe(202);
    expect(atCap.body.data).toMatchObject({ accepted: 2, rejected: 0 });
    expect(await storedIds(org)).toEqual(["after", "at-cap"]);

    const over = await upload(org, `{"item_id":"before","item_type":"t","status":"active"}\n${itemOf(CAP + 1, "over")}\n`, "application/x-ndjson");
    expect(over.status).toBe(413);
    expect(over.body.error).toBe("payload_too_large");
    expect(over.body.message).toContain("line 2");
    expect(over.body.message).toContain(`${CAP} bytes`);
    expect(await storedIds(org)).not.toContain("over");
  });

  it("stores a JSON array element of exactly 1 MiB (white space around it not counted) and refuses one of 1 MiB + 1 byte", async () => {
    const org = await newOrg(server.url);
    const atCap = await upload(org, `[\n  ${itemOf(CAP, "at-cap")}  \n, {"item_id":"after","item_type":"t","status":"active"}]`, "application/json");
    expect(atCap.status, JSON.stringify(atCap.body).slice(0, 300)).toBe(202);
    expect(atCap.body.data).toMatchObject({ accepted: 2, rejected: 0 });
    expect(await storedIds(org)).toEqual(["after", "at-cap"]);

    const over = await upload(org, `[{"item_id":"before","item_type":"t","status":"active"},\n${itemOf(CAP + 1, "over")}]`, "application/json");
    expect(over.status).toBe(413);
    expect(over.body.message).toContain("line 2");
    expect(await storedIds(org)).not.toContain("over");
  });

  it("reads a CSV row of exactly 1 MiB (refused by the schema for its attributes, not by the cap) and refuses one of 1 MiB + 1 byte with 413", async () => {
    const org = await newOrg(server.url);
    const atCap = await upload(org, `item_id,item_type,status,name\n${rowOf(CAP, "at-cap")}\r\nafter,t,active,x\n`, "text/csv");
    expect(atCap.status, JSON.stringify(atCap.body).slice(0, 300)).toBe(202);
    expect(atCap.body.data.accepted).toBe(1);
    expect(atCap.body.data.errors).toEqual([{ line: 2, message: expect.stringContaining("attributes: must be at most 32768 bytes of JSON") }]);
    expect(await storedIds(org)).toEqual(["after"]);

    const over = await upload(org, `item_id,item_type,status,name\nbefore,t,active,x\n${rowOf(CAP + 1, "over")}\n`, "text/csv");
    expect(over.status).toBe(413);
    expect(over.body.message).toContain("line 3");
  });

  it("counts a quoted CSV cell's doubled quotes and line breaks in the row's bytes", async () => {
    const org = await newOrg(server.url);
    // 1 MiB + 1 byte in the file, though the cell's value (each "" read as one ") is far shorter.
    const cell = `"${'""'.repeat(200_000)}\n${"x".repeat(CAP + 1 - 400_014)}"`;
    const over = await upload(org, `item_id,item_type,status,name\nq,t,active,${cell}\n`, "text/csv");
    expect(Buffer.byteLength(`q,t,active,${cell}`)).toBe(CAP + 1);
    expect(over.status).toBe(413);
    expect(over.body.message).toContain("line 2");
  });
});
