import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RecommendationClient } from "../../src/client/index.js";
import { newOrg, type Org } from "../helpers/api.js";
import { launchBrowser } from "../helpers/browser.js";
import { eventually, recommended, upsertItems } from "../helpers/recommend.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";
import { storedCounts } from "../helpers/traffic.js";

const SDK_PATH = "/sdk/recommendations.js";

let server: TestServer;
let port: string;
let org: Org;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let shop: Server;
let shopUrl: string;
/** The served build as fetched while the service was up: the shop's own copy, for a page loaded while it is down. */
let sdkCopy = "";

/** A customer's site on another origin: a page, and the SDK file it may host itself. */
function startShop(): Promise<Server> {
  const s = createServer((req, res) => {
    if (req.url === "/sdk.js") res.writeHead(200, { "content-type": "text/javascript" }).end(sdkCopy);
    else res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Shop</title><h1>Shop</h1>");
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

beforeAll(async () => {
  // A fixed port from the start: a listener on port 0 leaves TIME_WAIT sockets a restart on that port cannot bind past.
  port = String(await freePort());
  server = await startServer({ env: { PORT: port } });
  org = await newOrg(server.url);
  sdkCopy = await (await fetch(server.url + SDK_PATH)).text();
  shop = await startShop();
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => shop?.close(r));
  await server?.cleanup();
});
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});
afterEach(async () => {
  await context.close();
});

/**
 * Imports the SDK into the shop's page from `sdkUrl`, starts a client on `window.client`, and tracks `views`
 * (answers the event ids). The page's code is a string: vitest would rewrite an `import()` in a function.
 */
function trackInPage(sdkUrl: string, options: Record<string, unknown>, views: string[], inPage: Page = page): Promise<string[]> {
  return inPage.evaluate(`(async () => {
    const { RecommendationClient } = await import(${JSON.stringify(sdkUrl)});
    const client = new RecommendationClient(${JSON.stringify(options)});
    window.client = client;
    return ${JSON.stringify(views)}.map((item_id) => client.track({ event_name: "view", item_id }).event_id);
  })()`) as Promise<string[]>;
}

async function storedOnce(ids: string[]): Promise<boolean> {
  const counts = await storedCounts(server.db(), org.orgId);
  return ids.every((id) => counts.get(id) === 1);
}

describe("the browser build in a real Chromium", () => {
  it("is served with its type and CORS, so a page on another origin imports it", async () => {
    const res = await fetch(server.url + SDK_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(sdkCopy).toMatch(/export\s*\{/);
  });

  it("sends what a page tracked when the visitor navigates away (keepalive on pagehide)", async () => {
    await page.goto(shopUrl + "/product");
    // Batches would wait a minute: only the page's going away sends them.
    const ids = await trackInPage(server.url + SDK_PATH, { baseUrl: server.url, publishableKey: org.pk, flushIntervalMs: 60_000 }, ["a", "b", "c"]);
    await page.goto("about:blank");
    await eventually(() => storedOnce(ids), Boolean, 10_000);
    expect(await storedOnce(ids)).toBe(true);
  });

  it("keeps the queue through a reload while the service is down, and drains it when the service is back", async () => {
    await page.goto(shopUrl + "/product");
    await server.stop();
    const options = { baseUrl: server.url, publishableKey: org.pk, flushIntervalMs: 100, backoff: { baseMs: 100, maxMs: 500 } };
    const ids = await trackInPage(shopUrl + "/sdk.js", options, ["d", "e", "f"]);
    await page.waitForTimeout(300); // a few failed sends: the events stay queued
    await page.reload();
    const queued = await page.evaluate(() => JSON.parse(localStorage.getItem("recsvc:queue") ?? "[]") as Array<{ event_id: string }>);
    expect(queued.map((e) => e.event_id).sort()).toEqual([...ids].sort());
    await trackInPage(shopUrl + "/sdk.js", options, []);
    server = await startServer({ reuse: server, env: { PORT: port } });
    await eventually(() => storedOnce(ids), Boolean, 15_000);
    expect(await storedOnce(ids)).toBe(true);
    await eventually(
      () => page.evaluate(() => localStorage.getItem("recsvc:queue")),
      (q) => q === null,
      5_000,
    );
  });

  it("lets two tabs of one site share the stored queue without erasing each other's events", async () => {
    await page.goto(shopUrl + "/product");
    const other = await context.newPage();
    await other.goto(shopUrl + "/cart");
    // Nothing answers on port 9: every send fails, so what each tab tracked stays queued.
    const options = { baseUrl: "http://127.0.0.1:9", publishableKey: org.pk, flushIntervalMs: 60_000 };
    const first = await trackInPage(shopUrl + "/sdk.js", options, ["p", "q"]);
    const second = await trackInPage(shopUrl + "/sdk.js", options, ["r"], other);
    // The first tab's own client saves again, after the second tab's save.
    const more = await page.evaluate(() => [
      (window as unknown as { client: RecommendationClient }).client.track({ event_name: "view", item_id: "s" }).event_id,
    ]);
    const stored = await other.evaluate(() =>
      (JSON.parse(localStorage.getItem("recsvc:queue") ?? "[]") as Array<{ event_id: string }>).map((e) => e.event_id),
    );
    expect(stored.sort()).toEqual([...first, ...second, ...more].sort());
  });

  it("moves the anonymous visitor's history to the user on identify (recently-viewed shows it)", async () => {
    await upsertItems(server.url, org, [{ item_id: "g" }, { item_id: "h" }]);
    await page.goto(shopUrl + "/product");
    await trackInPage(server.url + SDK_PATH, { baseUrl: server.url, publishableKey: org.pk, flushIntervalMs: 50 }, ["g", "h"]);
    const anonymous = await page.evaluate(async () => {
      const client = (window as unknown as { client: RecommendationClient }).client;
      const before = client.userId;
      client.identify("customer-42");
      await client.flush();
      return before;
    });
    expect(anonymous).toMatch(/^anon-/);
    const { value } = await eventually(
      () => recommended(server.url, org, { strategy: "recently-viewed", user_id: "customer-42" }),
      (items) => items.length === 2,
    );
    expect(value.sort()).toEqual(["g", "h"]);
  });
});
