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

/** Tracks `n` views in the page's running client (`window.client`), one every `everyMs`; answers their event ids. */
function trackSeveral(inPage: Page, n: number, everyMs: number): Promise<string[]> {
  return inPage.evaluate(
    async ([n, everyMs]) => {
      const client = (window as unknown as { client: RecommendationClient }).client;
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        ids.push(client.track({ event_name: "view", item_id: `item-${i}` }).event_id);
        await new Promise((r) => setTimeout(r, everyMs));
      }
      return ids;
    },
    [n, everyMs],
  );
}

/** The ids of the events the shop's tabs keep in storage, each under its own key (`recsvc:queue:<tab>`), sorted. */
function queuedInStorage(inPage: Page): Promise<string[]> {
  return inPage.evaluate(() => {
    const ids: string[] = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i) ?? "";
      if (!key.startsWith("recsvc:queue:")) continue;
      const stored = JSON.parse(localStorage.getItem(key) ?? "") as { events: Array<{ event_id: string }> };
      ids.push(...stored.events.map((e) => e.event_id));
    }
    return ids.sort();
  });
}

/** The page's queue keys, the shared one of earlier versions included. */
function queueKeys(inPage: Page): Promise<string[]> {
  return inPage.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("recsvc:queue")));
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
    expect(await queuedInStorage(page)).toEqual([...ids].sort());
    await trackInPage(shopUrl + "/sdk.js", options, []);
    server = await startServer({ reuse: server, env: { PORT: port } });
    await eventually(() => storedOnce(ids), Boolean, 15_000);
    expect(await storedOnce(ids)).toBe(true);
    const { value: left } = await eventually(
      () => queueKeys(page),
      (keys) => keys.length === 0,
      5_000,
    );
    expect(left).toEqual([]);
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
    const all = [...first, ...second, ...more].sort();
    const { value: stored } = await eventually(
      () => queuedInStorage(other),
      (ids) => ids.join() === all.join(),
      3_000,
    );
    expect(stored).toEqual(all);
  });

  it("loses no event while two tabs save at once, each a moment after the other, fifty times over", async () => {
    await page.goto(shopUrl + "/product");
    const other = await context.newPage();
    await other.goto(shopUrl + "/cart");
    const options = { baseUrl: "http://127.0.0.1:9", publishableKey: org.pk, flushIntervalMs: 60_000 };
    const tracked = [...(await trackInPage(shopUrl + "/sdk.js", options, [])), ...(await trackInPage(shopUrl + "/sdk.js", options, [], other))];
    // Both tabs save every 2 ms at once: each save lands a moment after the other tab's.
    tracked.push(...(await Promise.all([trackSeveral(other, 50, 2), trackSeveral(page, 50, 2)])).flat());
    tracked.sort();
    const { value } = await eventually(
      () => queuedInStorage(other),
      (ids) => ids.join() === tracked.join(),
      3_000,
    );
    expect(value).toEqual(tracked);
  });

  it("has what a tab left while the service was down sent by another tab of the site once the service is back", async () => {
    await page.goto(shopUrl + "/product");
    const other = await context.newPage();
    await other.goto(shopUrl + "/cart");
    await server.stop();
    const options = { baseUrl: server.url, publishableKey: org.pk, flushIntervalMs: 100, backoff: { baseMs: 100, maxMs: 500 } };
    const left = await trackInPage(shopUrl + "/sdk.js", options, ["t", "u"]);
    const kept = await trackInPage(shopUrl + "/sdk.js", options, ["v"], other);
    await page.goto("about:blank"); // off the site: no page of it comes next in this tab
    // The other tab takes the closed tab's key in: its queue and its own key hold every event, and no other key is left.
    const pending = () => other.evaluate(() => (window as unknown as { client: RecommendationClient }).client.pending.queued);
    await eventually(pending, (n) => n === 3, 10_000);
    expect(await pending()).toBe(3);
    expect(await queueKeys(other)).toHaveLength(1);
    expect(await queuedInStorage(other)).toEqual([...left, ...kept].sort());
    server = await startServer({ reuse: server, env: { PORT: port } });
    await eventually(() => storedOnce([...left, ...kept]), Boolean, 15_000);
    expect(await storedOnce([...left, ...kept])).toBe(true);
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
