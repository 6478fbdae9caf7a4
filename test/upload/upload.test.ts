import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type ApiResponse, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { onOneConnection, sendInPieces } from "../helpers/rawHttp.js";
import { eventually, recommended } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { UPLOAD_MAX_BYTES: String(4 * 1024 * 1024) } });
});
afterAll(async () => {
  await server?.cleanup();
});

const upload = (org: Org | string, kind: string, body: string | Buffer | ReadableStream, contentType = "text/csv") =>
  call(server.url, "POST", `/v1/upload/${kind}`, { token: typeof org === "string" ? org : org.token, raw: body, contentType });

async function storedItems(org: Org) {
  const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
  const { rows } = await server.db().query("SELECT item_id, item_type, status, attributes FROM items WHERE org = $1 ORDER BY item_id", [seq]);
  return rows;
}

/** A body sent in many small pieces, as a slow client or a large file would arrive. */
function trickle(text: string, pieceBytes: number): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + pieceBytes)));
      at += pieceBytes;
    },
  });
}

/**
 * A POST over a bare socket that, like curl, watches for an answer while it sends and stops sending once one
 * comes: the server answers an oversized body early and closes (fetch gives up with EPIPE there instead).
 */
function postEarlyAnswer(path: string, token: string, contentType: string, body: Buffer): Promise<Pick<ApiResponse, "status" | "body">> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let sent = 0;
    const sendMore = () => {
      while (received.length === 0 && sent < body.length) {
        const piece = body.subarray(sent, sent + 65_536);
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once("drain", sendMore);
      }
    };
    /** The answer once whole (head and Content-Length bytes of body), else undefined. */
    const answer = () => {
      const text = Buffer.concat(received).toString();
      const head = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1]);
      if (head === -1 || !(text.length - head - 4 >= length)) return undefined;
      return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]), body: JSON.parse(text.slice(head + 4, head + 4 + length)) };
    };
    socket.on("data", (d) => {
      received.push(d);
      const a = answer();
      if (a) {
        socket.destroy();
        resolve(a);
      }
    });
    socket.on("error", () => undefined); // EPIPE/ECONNRESET while still sending: the answer is what counts
    socket.on("close", () => reject(new Error(`no whole answer: ${Buffer.concat(received).toString().slice(0, 200)}`)));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    sendMore();
  });
}

describe("CSV uploads", () => {
  it("stores good rows, reports bad ones by line, and turns other columns into attributes with numbers kept as numbers", async () => {
    const org = await newOrg(server.url);
    const csv = [
      "item_id,item_type,status,price,brand,sku",
      "a1,product,active,19.5,Acme,007",
      "a2,product,sometimes,3,Acme,008",
      "a3,,active,4,Globex,009",
      "a4,product,active,,Initech,1e3",
    ].join("\n");
    const r = await upload(org, "items", csv);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.data.accepted).toBe(2);
    expect(r.body.data.rejected).toBe(2);
    expect(r.body.data.errors).toEqual([
      { line: 3, message: expect.stringContaining("status") },
      { line: 4, message: expect.stringContaining("item_type") },
    ]);
    expect(await storedItems(org)).toEqual([
      { item_id: "a1", item_type: "product", status: "active", attributes: { price: 19.5, brand: "Acme", sku: "007" } },
      { item_id: "a4", item_type: "product", status: "active", attributes: { brand: "Initech", sku: 1000 } },
    ]);
  });

  it("reads quoted cells with commas, doubled quotes and line breaks, and counts lines across them", async () => {
    const org = await newOrg(server.url);
    const csv = 'item_id,item_type,status,title\r\nq1,book,active,"Hello, ""World"""\r\nq2,book,active,"two\nlines"\r\nq3,book,bad,x\r\n';
    const r = await upload(org, "items", csv);
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ accepted: 2, rejected: 1, errors: [{ line: 5, message: expect.stringContaining("status") }] });
    const items = await storedItems(org);
    expect(items.map((i) => i.attributes.title)).toEqual(['Hello, "World"', "two\nlines"]);
  });

  it("reports rows with the wrong number of cells or an unclosed quote, and keeps going", async () => {
    const org = await newOrg(server.url);
    const csv = 'item_id,item_type,status\nb1,book,active,extra\nb2,book,active\nb3,book,"active';
    const r = await upload(org, "items", csv);
    expect(r.body.data).toEqual({
      accepted: 1,
      rejected: 2,
      errors: [
        { line: 2, message: "expected 3 cells as in the header, found 4" },
        { line: 4, message: "a quoted cell is not closed before the end of the file" },
      ],
    });
  });

  it("answers 400 validation_error and stores nothing when the header lacks a required column", async () => {
    const org = await newOrg(server.url);
    const r = await upload(org, "items", "item_id,status\nc1,active\n");
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
    expect(r.body.message).toContain("item_type");
    expect(await storedItems(org)).toEqual([]);
  });

  it("answers 400 validation_error for a header with a repeated, empty or __proto__ column", async () => {
    const org = await newOrg(server.url);
    for (const header of ["item_id,item_type,status,size,size", "item_id,item_type,status,", "item_id,item_type,status,__proto__"]) {
      const r = await upload(org, "items", `${header}\nd1,t,active,x,y\n`);
      expect(r.status, header).toBe(400);
      expect(r.body.error).toBe("validation_error");
    }
    expect(await storedItems(org)).toEqual([]);
  });

  it("stores a large file sent in small pieces, every row once, with the errors capped at 100 and all counted", async () => {
    const org = await newOrg(server.url);
    const lines = ["item_id,item_type,status,rank"];
    for (let i = 0; i < 30_000; i++) lines.push(i % 200 === 7 ? `big${i},x,unknown,${i}` : `big${i},x,active,${i}`);
    const r = await call(server.url, "POST", "/v1/upload/items", {
      token: org.token,
      raw: trickle(lines.join("\n"), 7_919),
      contentType: "text/csv",
    });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(202);
    expect(r.body.data.accepted).toBe(29_850);
    expect(r.body.data.rejected).toBe(150);
    expect(r.body.data.errors).toHaveLength(100);
    expect(r.body.data.errors[0]).toEqual({ line: 9, message: expect.stringContaining("status") });
    const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
    const { rows } = await server.db().query("SELECT count(*)::int AS n, count(DISTINCT item_id)::int AS d FROM items WHERE org = $1", [seq]);
    expect(rows[0]).toEqual({ n: 29_850, d: 29_850 });
  });

  it("keeps each item's status history across uploads: the first status, then only real changes", async () => {
    const org = await newOrg(server.url);
    const rows = (statuses: string[]) => ["item_id,item_type,status", ...statuses.map((st, i) => `h${i},t,${st}`)].join("\n");
    expect((await upload(org, "items", rows(["active", "active", "active"]))).status).toBe(202);
    expect((await upload(org, "items", rows(["active", "inactive", "active"]))).status).toBe(202);
    const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
    const { rows: history } = await server
      .db()
      .query("SELECT id, old_status, new_status FROM status_changes WHERE org = $1 AND kind = 'item' ORDER BY at, id", [seq]);
    expect(history.map((h) => `${h.id}:${h.old_status}->${h.new_status}`)).toEqual([
      "h0:null->active",
      "h1:null->active",
      "h2:null->active",
      "h1:active->inactive",
    ]);
  });

  it("makes uploaded items visible to recommendations like any upsert", async () => {
    const org = await newOrg(server.url);
    const r = await upload(org, "items", `item_id,item_type,status,created_at\nfresh-1,product,active,${new Date().toISOString()}\n`);
    expect(r.status).toBe(202);
    const seen = await eventually(
      () => recommended(server.url, org, { strategy: "new-arrivals", limit: 10 }),
      (ids) => ids.includes("fresh-1"),
    );
    expect(seen.ms).toBeLessThan(5000);
  });
});

describe("NDJSON and JSON array uploads", () => {
  it("stores NDJSON users and reports a line that is not JSON or breaks the schema by its line number", async () => {
    const org = await newOrg(server.url);
    const at = new Date().toISOString();
    const body = [
      JSON.stringify({ user_id: "u1", status: "active", created_at: at, attributes: { plan: "pro" } }),
      "",
      "{not json",
      JSON.stringify({ user_id: "u2", status: "active" }),
      JSON.stringify({ user_id: "u3", status: "inactive", created_at: at }),
    ].join("\n");
    const r = await upload(org, "users", body, "application/x-ndjson");
    expect(r.status).toBe(202);
    expect(r.body.data).toEqual({
      accepted: 2,
      rejected: 2,
      errors: [
        { line: 3, message: expect.stringContaining("not valid JSON") },
        { line: 4, message: expect.stringContaining("created_at") },
      ],
    });
    const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
    const { rows } = await server.db().query("SELECT user_id, status, attributes FROM users WHERE org = $1 ORDER BY user_id", [seq]);
    expect(rows).toEqual([
      { user_id: "u1", status: "active", attributes: { plan: "pro" } },
      { user_id: "u3", status: "inactive", attributes: {} },
    ]);
  });

  it("splits a JSON array into records as it streams, with each element's starting line", async () => {
    const org = await newOrg(server.url);
    const body = `[\n  {"item_id": "j1", "item_type": "t", "status": "active", "attributes": {"tags": ["a", "b]"], "n": {"x": 1}}},\n  {"item_id": "j2", "item_type": "t", "status": "nope"},\n  {"item_id": "j3",\n   "item_type": "t", "status": "active"}\n]\n`;
    const r = await call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: trickle(body, 5), contentType: "application/json" });
    expect(r.status).toBe(202);
    expect(r.body.data).toEqual({ accepted: 2, rejected: 1, errors: [{ line: 3, message: expect.stringContaining("status") }] });
    expect((await storedItems(org)).map((i) => [i.item_id, i.attributes])).toEqual([
      ["j1", { tags: ["a", "b]"], n: { x: 1 } }],
      ["j3", {}],
    ]);
  });

  it("answers 400 validation_error when a JSON body is not an array", async () => {
    const org = await newOrg(server.url);
    const r = await upload(org, "items", '{"item_id": "x"}', "application/json");
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
  });
});

describe("upload rules", () => {
  it("answers an empty file (Content-Length: 0) whose request head arrives in several packets", async () => {
    const org = await newOrg(server.url);
    const head = `POST /v1/upload/items HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${org.token}\r\ncontent-type: text/csv\r\ncontent-length: 0\r\n\r\n`;
    const r = await sendInPieces(server.url, [head.slice(0, 20), head.slice(20)]);
    expect(r?.status).toBe(400);
    expect(r?.body).toEqual({ success: false, message: expect.stringContaining("empty"), error: "validation_error" });
  });

  it("answers 415 unsupported_media_type for a body that is not CSV, NDJSON or JSON", async () => {
    const org = await newOrg(server.url);
    const r = await upload(org, "items", "item_id\n", "text/plain");
    expect(r.status).toBe(415);
    expect(r.body.error).toBe("unsupported_media_type");
  });

  it("takes a dashboard token only: no token is 401 invalid_token, and an API key does not count", async () => {
    const org = await newOrg(server.url);
    const headerSets: Array<Record<string, string>> = [{}, { "x-api-key": org.sk }];
    for (const headers of headerSets) {
      const r = await call(server.url, "POST", "/v1/upload/items", {
        raw: "item_id,item_type,status\nk,t,active\n",
        contentType: "text/csv",
        headers,
      });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("invalid_token");
    }
    expect(await storedItems(org)).toEqual([]);
  });

  it("answers 403 forbidden_role to a MEMBER and accepts a DEVELOPER", async () => {
    const org = await newOrg(server.url);
    const csv = "item_id,item_type,status\nr1,t,active\n";
    const member = await upload(await memberToken(server, org, "MEMBER"), "items", csv);
    expect(member.status).toBe(403);
    expect(member.body.error).toBe("forbidden_role");
    expect((await upload(await memberToken(server, org, "DEVELOPER"), "items", csv)).status).toBe(202);
  });

  it("serves the connection's next request after answering 413 to a file whose Content-Length is over UPLOAD_MAX_BYTES", async () => {
    const org = await newOrg(server.url);
    const host = new URL(server.url).host;
    const file = Buffer.from("item_id,item_type,status\n" + "x".repeat(4 * 1024 * 1024));
    const upload = Buffer.concat([
      Buffer.from(
        `POST /v1/upload/items HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${org.token}\r\nContent-Type: text/csv\r\nContent-Length: ${file.length}\r\n\r\n`,
      ),
      file,
    ]);
    const health = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(await onOneConnection(server.url, [upload, health])).toEqual([413, 200]);
  });

  it("answers 413 payload_too_large for a file over UPLOAD_MAX_BYTES, and for one record over 1 MiB", async () => {
    const org = await newOrg(server.url);
    const huge = await postEarlyAnswer(
      "/v1/upload/items",
      org.token,
      "text/csv",
      Buffer.from("item_id,item_type,status\n" + "x".repeat(5 * 1024 * 1024)),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe("payload_too_large");
    const longRecord = await postEarlyAnswer(
      "/v1/upload/items",
      org.token,
      "text/csv",
      Buffer.from("item_id,item_type,status\nok,t,active\n" + "y".repeat(1_100_000)),
    );
    expect(longRecord.status).toBe(413);
    expect(longRecord.body.message).toContain("line 3");
  });

  it("records upload.items in the audit log with the counts and the client IP", async () => {
    const org = await newOrg(server.url);
    await call(server.url, "POST", "/v1/upload/items", {
      token: org.token,
      raw: "item_id,item_type,status\nz1,t,active\nz2,t,bad\n",
      contentType: "text/csv",
      headers: { "x-forwarded-for": "198.51.100.4" },
    });
    const log = await call(server.url, "GET", "/v1/audit-log?limit=1", { token: org.token });
    expect(log.body.data.entries[0]).toMatchObject({
      action: "upload.items",
      target: "csv: 1 stored, 1 rejected",
      ip: "198.51.100.4",
      actor: { email: org.email },
    });
  });
});

describe("an upload larger than the ingest queue", () => {
  /** Room for the four 10,000-row chunks an upload keeps in flight, and little more. */
  const QUEUE_ROWS = 50_000;
  let small: TestServer;
  beforeAll(async () => {
    small = await startServer({ env: { INGEST_QUEUE_MAX: String(QUEUE_ROWS) } });
  });
  afterAll(async () => {
    await small?.cleanup();
  });

  it("is throttled by pausing the socket, not refused: eight times the queue, every row stored", async () => {
    const org = await newOrg(small.url);
    const rows = 8 * QUEUE_ROWS;
    const lines = ["item_id,item_type,status,price"];
    for (let i = 0; i < rows; i++) lines.push(`t${i},product,active,${i % 997}`);
    const r = await call(small.url, "POST", "/v1/upload/items", { token: org.token, raw: lines.join("\n"), contentType: "text/csv" });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.data).toEqual({ accepted: rows, rejected: 0, errors: [] });
    const seq = (await small.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
    const { rows: stored } = await small.db().query("SELECT count(*)::int AS n FROM items WHERE org = $1", [seq]);
    expect(stored[0].n).toBe(rows);
  }, 60_000);
});
