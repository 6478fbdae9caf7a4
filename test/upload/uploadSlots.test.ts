import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type ApiResponse, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { UPLOAD_MAX_PER_ORG: "2", UPLOAD_MAX_CONCURRENT: "3" } });
});
afterAll(async () => {
  await server?.cleanup();
});

const SMALL = "item_id,item_type,status\nx,t,active\n";

/**
 * An upload whose body stays open until `finish()`, 50 rows every 200 ms (uWS closes a connection that sends
 * less than about 16 KB in 10 s). A probe may take the slot it was going for: an attempt refused before
 * `finish()` (the server answers 429 and closes) is made again, so that it ends up holding a slot.
 */
function openUpload(org: Org): { finish(): Promise<ApiResponse> } {
  let open = true;
  const encoder = new TextEncoder();
  const attempt = (): Promise<ApiResponse> => {
    let row = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("item_id,item_type,status\n"));
      },
      async pull(controller) {
        if (!open) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 200));
        controller.enqueue(encoder.encode(Array.from({ length: 50 }, () => `held-${row++},t,active\n`).join("")));
      },
    });
    return call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: body, contentType: "text/csv" }).then(
      (r) => (open ? attempt() : r),
      (err: unknown) => {
        if (open) return attempt();
        throw err;
      },
    );
  };
  const answer = attempt();
  return {
    finish: () => {
      open = false;
      return answer;
    },
  };
}

/** Uploads a small file until the answer has `status` (the held uploads take their slots once authenticated); that answer. */
async function uploadUntil(org: Org, status: number): Promise<ApiResponse> {
  const until = Date.now() + 20_000;
  for (;;) {
    const r = await call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: SMALL, contentType: "text/csv" });
    if (r.status === status || Date.now() > until) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("concurrent uploads", () => {
  it("answers 429 rate_limited to an organisation's third upload while two run, 503 unavailable past the process's limit, and takes uploads again once they end", async () => {
    const [a, b, c] = await Promise.all([newOrg(server.url), newOrg(server.url), newOrg(server.url)]);
    const held = [openUpload(a), openUpload(a)];

    const third = await uploadUntil(a, 429);
    expect(third.status).toBe(429);
    expect(third.body.error).toBe("rate_limited");
    expect(third.body.message).toContain("at most 2 at once");
    expect(third.headers.get("retry-after")).toBe("5");

    // Another organisation still gets the third of the process's three slots.
    const ofB = openUpload(b);
    const full = await uploadUntil(c, 503);
    expect(full.status).toBe(503);
    expect(full.body.error).toBe("unavailable");

    const answers = await Promise.all([...held, ofB].map((u) => u.finish()));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202]);
    expect((await call(server.url, "POST", "/v1/upload/items", { token: a.token, raw: SMALL, contentType: "text/csv" })).status).toBe(202);
    expect((await call(server.url, "POST", "/v1/upload/items", { token: c.token, raw: SMALL, contentType: "text/csv" })).status).toBe(202);
  }, 60_000);
});
