import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, freshIp, newOrg, type Org } from "../helpers/api.js";
import { docScreenshots, launchBrowser, overflowsHorizontally, unlabelledControls } from "../helpers/browser.js";
import { addMember, MEMBER_PASSWORD } from "../helpers/members.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.cleanup();
});
beforeEach(async () => {
  // Sign-ins are limited per client address: each test's browser comes from an address of its own.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { "x-forwarded-for": freshIp() } });
  page = await context.newPage();
});
afterEach(async () => {
  await page.context().close();
});

/** Hundreds of recommend calls and the writers' batches on a busy two-core machine: more than the default minute. */
const SLOW_MS = 180_000;

async function logIn(email: string, password = MEMBER_PASSWORD): Promise<void> {
  await page.goto(`${server.url}/dashboard`);
  await page.locator("#login-email").fill(email);
  await page.locator("#login-password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Quick start" }).waitFor();
}

/** A shop of three items with one purchase, so that `popular` answers. */
async function shop(): Promise<Org> {
  const org = await newOrg(server.url);
  await upsertItems(
    server.url,
    org,
    ["a", "b", "c"].map((item_id) => ({ item_id })),
  );
  await sendEvents(server.url, org, [{ user: "x", item: "a", name: "purchase" }]);
  return org;
}

/**
 * `users` users each get one recommendation on `scenario`; the k-th user to land in a variant converts when k is
 * a multiple of `convertEvery[variant]` and clicks when k is even: rates fixed by construction, whatever the split.
 */
async function traffic(org: Org, scenario: string, users: number, convertEvery: Record<string, number>): Promise<number> {
  const arrivals = new Map<string, number>();
  const events: EventSpec[] = [];
  let conversions = 0;
  for (let start = 0; start < users; start += 20) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => recommend(server.url, org, { strategy: "popular", user_id: `${scenario}-u${start + i}`, scenario })),
    );
    answers.forEach((r, i) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const variant = r.body.data.experiment.variant as string;
      const k = arrivals.get(variant) ?? 0;
      arrivals.set(variant, k + 1);
      const user = `${scenario}-u${start + i}`;
      const rid = { recommendation_id: r.body.data.recommendation_id };
      if (k % 2 === 0) events.push({ user, item: "a", name: "click", extra: rid });
      if (k % convertEvery[variant]! === 0) {
        events.push({ user, item: "a", name: "purchase", extra: rid });
        conversions++;
      }
    });
  }
  await sendEvents(server.url, org, events);
  return conversions;
}

const experiments = () => page.locator("#view-experiments");
const variant = (k: number) => page.locator(`#experiment-variants li[data-variant="${k}"]`);

describe("the Experiments page", () => {
  it(
    "creates an experiment, shows its results with intervals and a verdict in plain words as traffic arrives, and stops it after a confirmation",
    async () => {
      const org = await shop();
      await logIn(org.email, org.password);
      await page.getByRole("link", { name: "Experiments" }).click();
      await expect.poll(() => page.locator("#experiments-rows").textContent()).toContain("No experiments yet.");
      expect(await unlabelledControls(page)).toEqual([]);

      await experiments().getByLabel("Name", { exact: true }).first().fill("Trending on the home page");
      await experiments().getByLabel("Scenario").fill("home");
      await experiments()
        .getByLabel(/^Holdout/)
        .fill("10");
      // Shares that do not add up, told beside the variants before anything is sent.
      await variant(1).getByLabel("Share (%)").fill("60");
      await page.getByRole("button", { name: "Start experiment" }).click();
      await expect
        .poll(() => page.locator("#experiment-variants-error").textContent())
        .toBe("The shares must add up to 100 % (they add up to 110 %).");
      // A name the API refuses, told under that variant's name in the API's words.
      await variant(1).getByLabel("Share (%)").fill("50");
      await variant(1).getByLabel("Name").fill("holdout");
      await page.getByRole("button", { name: "Start experiment" }).click();
      await expect.poll(() => page.locator("#variant-1-name-error").textContent()).toBe("'holdout' names the holdout");
      expect(await page.locator("#experiment-variants-error").textContent()).toBe("");
      expect(await page.locator("#variant-1-name").getAttribute("aria-invalid")).toBe("true");

      await variant(1).getByLabel("Name").fill("B");
      expect(await variant(1).getByLabel("Strategy").inputValue()).toBe("trending");
      await page.getByRole("button", { name: "Start experiment" }).click();
      await expect.poll(() => page.locator("#experiments-rows").textContent()).toContain("running");
      expect(await page.locator("#experiments-rows th").allTextContents()).toEqual(["Trending on the home page"]);
      await expect.poll(() => page.locator("#experiment-verdict").textContent()).toContain("Nothing to compare yet");
      const listed = await call(server.url, "GET", "/v1/experiments", { apiKey: org.sk });
      expect(listed.body.data.experiments).toMatchObject([
        {
          name: "Trending on the home page",
          scenario: "home",
          status: "running",
          holdout: 0.1,
          variants: [
            { name: "A", share: 0.5 },
            { name: "B", share: 0.5, strategy: "trending" },
          ],
        },
      ]);
      const id = listed.body.data.experiments[0].experiment_id as string;

      // B converts one user in 3, A one in 10 (the holdout one in 10 too): B must be found better, A not worse than itself.
      const conversions = await traffic(org, "home", 240, { A: 10, B: 3, holdout: 10 });
      await eventually(
        async () => (await call(server.url, "GET", `/v1/analytics/experiments/${id}`, { token: org.token })).body.data,
        (r) => r.variants.reduce((n: number, v: { conversions: number }) => n + v.conversions, 0) === conversions,
        60_000,
      );
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect
        .poll(() => page.locator("#experiment-verdict li").allTextContents())
        .toEqual([
          expect.stringMatching(/^B converts \d+ % more than A \(\d+\.\d %.* of users\): 95 % sure it is not chance \(p [<=] 0\.0\d+\)/),
          expect.stringMatching(/^No difference between holdout and A can be told yet/),
        ]);
      const rows = await page.locator("#experiment-table tbody tr").allTextContents();
      expect(rows.map((r) => r.split(/\d/)[0])).toEqual(["A", "B", "holdout"]);
      expect(rows[1]).toMatch(/points \(\+\d+\.\d\d to \+\d+\.\d\d\); p [<=] 0\.0/);
      // The intervals are drawn: a whisker per variant, named for screen readers.
      expect(await page.locator("#experiment-charts svg[role=img] title").first().textContent()).toBe("Conversion per user, with 95 % intervals");
      expect(await page.locator("#experiment-charts .interval").count()).toBe(3);
      expect(await page.locator("#experiment-charts .interval title").first().textContent()).toMatch(/^A: \d+\.\d+%, 95 % interval/);
      await page.getByLabel("Measure").selectOption("click_through");
      await expect.poll(() => page.locator("#experiment-verdict li").first().textContent()).toMatch(/^No difference between B and A can be told yet/);
      await page.getByLabel("Measure").selectOption("user_conversion");

      const widths = await docScreenshots(page, "experiments");
      expect(widths[390]).toBeLessThanOrEqual(390);
      expect(widths[1280]).toBeLessThanOrEqual(1280);

      await page.getByRole("button", { name: "Stop experiment" }).click();
      await expect.poll(() => page.getByRole("dialog").textContent()).toContain("Stop the experiment Trending on the home page?");
      await page.getByRole("dialog").getByRole("button", { name: "Stop experiment" }).click();
      await expect.poll(() => page.locator("#experiments-rows").textContent()).toContain("stopped");
      await expect.poll(() => page.getByRole("button", { name: "Stop experiment" }).isVisible()).toBe(false);
      expect((await call(server.url, "GET", `/v1/experiments/${id}`, { apiKey: org.sk })).body.data.status).toBe("stopped");
      // The scenario is free again: the next answer carries no experiment.
      const after = await recommend(server.url, org, { strategy: "popular", user_id: "later", scenario: "home" });
      expect(after.body.data.experiment).toBeUndefined();
      await page.getByRole("link", { name: "Audit log", exact: true }).click();
      await expect.poll(() => page.locator("#audit-rows").textContent()).toContain("experiment.stopped");
      expect(await page.locator("#audit-rows").textContent()).toContain("experiment.created");
    },
    SLOW_MS,
  );

  it("adds variants up to 5, splits the shares evenly, and keeps the control's requests as they are", async () => {
    const org = await shop();
    await logIn(org.email, org.password);
    await page.getByRole("link", { name: "Experiments" }).click();
    await experiments().getByLabel("Name", { exact: true }).first().fill("Five ways");
    await experiments().getByLabel("Scenario").fill("cart");
    for (let i = 0; i < 3; i++) await page.getByRole("button", { name: "Add variant" }).click();
    expect(await page.getByRole("button", { name: "Add variant" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Split evenly" }).click();
    expect(await page.locator("#experiment-variants input[id$=-share]").evaluateAll((ns) => ns.map((n) => (n as HTMLInputElement).value))).toEqual([
      "20",
      "20",
      "20",
      "20",
      "20",
    ]);
    expect(await variant(0).getByLabel("Strategy").count()).toBe(0);
    await variant(2).getByLabel("Diversity (0 to 1)").fill("0.3");
    await variant(3).getByLabel("Max per (JSON)").fill('{"brand": 1}');
    await page.getByRole("button", { name: "Remove variant 5" }).click();
    await page.getByRole("button", { name: "Split evenly" }).click();
    await page.getByRole("button", { name: "Start experiment" }).click();
    await expect.poll(() => page.locator("#experiments-rows").textContent()).toContain("Five ways");
    const listed = (await call(server.url, "GET", "/v1/experiments", { apiKey: org.sk })).body.data.experiments;
    expect(listed[0].variants).toEqual([
      { name: "A", share: 0.25 },
      { name: "B", share: 0.25, strategy: "trending" },
      { name: "C", share: 0.25, diversity: 0.3 },
      { name: "D", share: 0.25, max_per: { brand: 1 } },
    ]);
    // A second experiment on the same scenario: the API's conflict, told beside the scenario.
    await experiments().getByLabel("Name", { exact: true }).first().fill("Again");
    await experiments().getByLabel("Scenario").fill("cart");
    await page.getByRole("button", { name: "Start experiment" }).click();
    await expect.poll(() => page.locator("#experiment-scenario-error").textContent()).toContain("cart");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      expect(await overflowsHorizontally(page), `${width}px`).toBe(false);
      expect(await unlabelledControls(page), `${width}px`).toEqual([]);
    }
  });

  it("shows a MEMBER the experiments and their results, without the form or the stop button", async () => {
    const org = await shop();
    const made = await call(server.url, "POST", "/v1/experiments", {
      apiKey: org.sk,
      json: {
        name: "Read only",
        scenario: "home",
        variants: [
          { name: "A", share: 0.5 },
          { name: "B", share: 0.5, strategy: "trending" },
        ],
      },
    });
    expect(made.status).toBe(201);
    const member = await addMember(server, org, "MEMBER");
    await logIn(member.email);
    await page.getByRole("link", { name: "Experiments" }).click();
    await expect.poll(() => page.locator("#experiments-rows").textContent()).toContain("Read only");
    await expect.poll(() => page.locator("#experiment-results").isVisible()).toBe(true);
    expect(await page.locator("#experiment-form").isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Stop experiment" }).isVisible()).toBe(false);
    expect(await page.getByText("Only an OWNER, ADMIN or DEVELOPER starts or stops experiments.").isVisible()).toBe(true);
  });
});

describe("the Settings page", () => {
  it("lets an OWNER change the rate limit and the retention, with errors beside the field, and shows the audit entries", async () => {
    const org = await newOrg(server.url);
    await logIn(org.email, org.password);
    await page.getByRole("link", { name: "Settings" }).click();
    await expect.poll(() => page.locator("#limits-status").textContent()).toContain("1,000 requests per 900 seconds (the service's");
    await expect.poll(() => page.locator("#retention-status").textContent()).toContain("kept 400 days (the service's");

    await page.getByLabel("Requests per window").fill("0");
    await page.getByRole("button", { name: "Save rate limit" }).click();
    await expect.poll(() => page.locator("#limits-max-error").textContent()).toBe("Enter a whole number of requests from 1 to 1,000,000.");
    await page.getByLabel("Requests per window").fill("3600");
    await page.getByLabel("Window (seconds)").fill("3600");
    await page.getByRole("button", { name: "Save rate limit" }).click();
    await expect.poll(() => page.locator("#limits-status").textContent()).toContain("3,600 requests per 3,600 seconds (your organisation's");
    expect(await page.locator("#limits-max-error").textContent()).toBe("");

    await page.getByLabel("Keep events for (days)").fill("401");
    await page.getByRole("button", { name: "Save retention" }).click();
    await expect
      .poll(() => page.locator("#retention-days-error").textContent())
      .toBe("Enter a whole number of days from 1 to 400 (the service's retention).");
    expect(await page.locator("#retention-days").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Keep events for (days)").fill("180");
    await page.getByRole("button", { name: "Save retention" }).click();
    await expect.poll(() => page.locator("#retention-status").textContent()).toContain("kept 180 days (your organisation's");
    expect(await page.locator("#retention-days-error").textContent()).toBe("");
    await page.locator("#toast").evaluate((t) => t.classList.remove("shown"));
    const widths = await docScreenshots(page, "settings");
    expect(widths[390]).toBeLessThanOrEqual(390);

    const policy = await call(server.url, "POST", "/v1/events/ingest", {
      apiKey: org.pk,
      json: { user_id: "u", event_family: "engagement", event_name: "view" },
    });
    expect(policy.headers.get("ratelimit-policy")).toBe("3600;w=3600");
    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await expect.poll(() => page.locator("#audit-rows").textContent()).toContain("rate_limit=3600;w=3600");
    expect(await page.locator("#audit-rows").textContent()).toContain("events_retention_days=180");
    const actions = await page.locator("#audit-rows code.action").allTextContents();
    expect(actions.slice(0, 2).sort()).toEqual(["rate_limit.changed", "retention.changed"]);
  });

  it("shows neither the Settings link nor its forms to a DEVELOPER or a MEMBER, and the API refuses them", async () => {
    const org = await newOrg(server.url);
    for (const role of ["DEVELOPER", "MEMBER"] as const) {
      const who = await addMember(server, org, role);
      await logIn(who.email);
      expect(await page.getByRole("link", { name: "Settings" }).count(), role).toBe(0);
      await page.goto(`${server.url}/dashboard#settings`);
      await page.getByRole("heading", { name: "Quick start" }).waitFor();
      expect(await page.locator("#limits-form").isVisible(), role).toBe(false);
      expect(await page.locator("#retention-form").isVisible(), role).toBe(false);
      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByRole("heading", { name: "Sign in to your organisation" }).waitFor();
    }
  });
});

/**
 * Thirty days of a shop's traffic written straight into the tables the API reads (served rows and events are
 * only ever written "now" through the API): per day and strategy a few hundred served recommendations across
 * three scenarios, clicks and conversions carrying their ids, and views. The ids lead with the serving time as
 * the service's v7 ids do, and each week's events partition is made as the service makes it.
 */
async function seedMonth(org: Org): Promise<void> {
  const db = server.db();
  const { rows } = await db.query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId]);
  const seq = rows[0]!.seq;
  await db.query("SELECT ensure_events_partition(now() - make_interval(days => d)) FROM generate_series(0, 35, 7) d");
  await db.query("SELECT ensure_events_partition(now())");
  await db.query(
    `CREATE TEMP TABLE seeded AS
     WITH plan(strategy, base, ctr, cvr) AS (VALUES ('personalized', 220, 0.09, 0.022), ('popular', 160, 0.05, 0.012),
                                                ('trending', 90, 0.06, 0.015), ('because-you-viewed', 60, 0.11, 0.03)),
     served AS (
       SELECT p.strategy, p.ctr, p.cvr,
              (ARRAY['home', 'product-page', 'cart'])[1 + (n % 3)] AS scenario,
              date_trunc('day', now()) - make_interval(days => d) + make_interval(secs => (n * 86400.0 / (p.base * (1.2 + 0.3 * sin(d / 2.0))))) AS at
       FROM plan p, generate_series(0, 29) d, generate_series(0, 400) n
       WHERE n < p.base * (1.2 + 0.3 * sin(d / 2.0)) * (CASE WHEN extract(isodow FROM now() - make_interval(days => d)) >= 6 THEN 1.3 ELSE 1 END)
     )
     SELECT s.*, md5(random()::text) AS tail, lpad(to_hex((extract(epoch FROM s.at) * 1000)::bigint), 12, '0') AS head, random() AS luck
     FROM served s WHERE s.at < now()`,
  );
  await db.query(
    `INSERT INTO served_recommendations (org, recommendation_id, strategy, scenario, mode, user_id, items, served_at)
     SELECT $1, (substr(head, 1, 8) || '-' || substr(head, 9, 4) || '-7' || substr(tail, 1, 3) || '-8' || substr(tail, 4, 3) || '-' || substr(tail, 7, 12))::uuid,
            strategy, scenario, 'personalized', 'u-' || (random() * 500)::int, '[]'::json, at
     FROM seeded`,
    [seq],
  );
  await db.query(
    `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, recommendation_id, occurred_at, received_at)
     SELECT $1, gen_random_uuid(), 'u-1', 'sku-1', kind.family, kind.name, 1, r.recommendation_id::text, r.served_at + interval '1 minute', r.served_at + interval '1 minute'
     FROM served_recommendations r JOIN seeded s ON s.at = r.served_at AND s.strategy = r.strategy AND s.scenario = r.scenario
     CROSS JOIN LATERAL (VALUES ('engagement', 'click', s.luck < s.ctr), ('conversion', 'purchase', s.luck < s.cvr)) kind(family, name, happened)
     WHERE r.org = $1 AND kind.happened`,
    [seq],
  );
  await db.query(
    `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
     SELECT $1, gen_random_uuid(), 'u-' || (n % 500), 'sku-' || (n % 40), 'engagement', 'view', 1, t, t
     FROM generate_series(0, 29 * 24 * 3) n, LATERAL (SELECT now() - make_interval(mins => n * 20) AS t) at`,
    [seq],
  );
}

describe("the Analytics page", () => {
  const DAY_MS = 86_400_000;
  const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const tableRows = () => page.locator("#analytics-table tbody tr").allTextContents();

  it(
    "charts served, click-through and conversion over a date range, per strategy or per scenario, with the organisation's totals",
    async () => {
      const org = await newOrg(server.url);
      await upsertItems(server.url, org, [{ item_id: "p1" }, { item_id: "p2" }, { item_id: "gone", status: "inactive" }]);
      await sendEvents(server.url, org, [{ user: "buyer", item: "p1", name: "purchase" }]);
      // Every call is a served recommendation, the empty ones made while the purchase reaches the index included.
      let calls = 0;
      const served = await eventually(
        () => (calls++, recommend(server.url, org, { strategy: "popular", limit: 5, scenario: "home" })),
        (r) => r.body.data?.recommended_items?.length > 0,
        15_000,
      );
      for (let i = 0; i < 3; i++) expect((await recommend(server.url, org, { strategy: "trending", scenario: "cart" })).status).toBe(200);
      const rid = served.value.body.data.recommendation_id as string;
      await sendEvents(server.url, org, [
        { user: "viewer", item: "p1", name: "click", extra: { recommendation_id: rid } },
        { user: "viewer", item: "p1", name: "purchase", extra: { recommendation_id: rid } },
      ]);
      await logIn(org.email, org.password);
      await page.getByRole("link", { name: "Analytics" }).click();
      const rate = (n: number) => `${(n * 100).toFixed(n > 0 && n < 0.1 ? 2 : 1)}%`;
      await expect
        .poll(
          async () => {
            await page.getByRole("button", { name: "Show" }).click(); // served rows and attributions are written in batches
            return (await tableRows()).sort();
          },
          { timeout: 20_000 },
        )
        .toEqual([`popular${calls}1${rate(1 / calls)}1${rate(1 / calls)}`, "trending300.0%00.0%"]);
      expect(await page.getByLabel("From").inputValue()).toBe(isoDay(Date.now() - 29 * DAY_MS));
      expect(await page.getByLabel(/^To/).inputValue()).toBe(isoDay(Date.now()));
      const tiles = await page.locator("#analytics-tiles .tile").allTextContents();
      expect(tiles[0]).toBe("Items2active, of 3");
      expect(tiles[2]).toMatch(/^Events in range\d+/);
      expect(tiles[2]).toContain("conversion 2");
      expect(tiles[3]).toMatch(/^Ingestion/);
      const titles = await page.locator("#analytics-chart svg[role=img] > title").allTextContents();
      expect(titles).toEqual(["Served recommendations per strategy", "Click-through per strategy", "Conversion per strategy", "Events per family"]);
      expect(await page.locator("#analytics-chart .legend").first().textContent()).toMatch(/^(populartrending|trendingpopular)$/);

      await page.getByLabel("Lines per").selectOption("scenarios");
      await expect.poll(async () => (await tableRows()).sort()).toEqual(["cart300.0%00.0%", `home${calls}1${rate(1 / calls)}1${rate(1 / calls)}`]);
      expect(await page.locator("#analytics-chart svg[role=img] > title").first().textContent()).toBe("Served recommendations per scenario");

      // The last 24 hours, one point per hour: the request says so, and so does the chart.
      const hourly = page.waitForRequest((r) => r.url().includes("/v1/analytics/strategies") && r.url().includes("granularity=hour"));
      await page.getByRole("button", { name: "Last 24 hours" }).click();
      await hourly;
      expect(await page.getByLabel("Points").inputValue()).toBe("hour");
      await expect.poll(() => page.locator("#analytics-chart svg[role=img] > desc").first().textContent()).toContain("one point per hour");
      await expect.poll(async () => (await tableRows()).sort()).toEqual(["cart300.0%00.0%", `home${calls}1${rate(1 / calls)}1${rate(1 / calls)}`]);

      // Ten days by the hour is refused beside the field before anything is sent; by the day it is shown.
      await page.getByLabel("From").fill(isoDay(Date.now() - 9 * DAY_MS));
      await page.getByLabel(/^To/).fill(isoDay(Date.now()));
      await page.getByLabel("Points").selectOption("hour");
      await page.getByRole("button", { name: "Show" }).click();
      await expect
        .poll(() => page.locator("#analytics-granularity-error").textContent())
        .toBe("One point per hour needs a range under 3 days: choose one per day, or a shorter range.");
      await page.getByLabel("Points").selectOption("day");
      const daily = page.waitForResponse((r) => r.url().includes("/v1/analytics/strategies") && r.url().includes("granularity=day"));
      await page.getByRole("button", { name: "Show" }).click();
      const answer = await (await daily).json();
      expect(answer.data.buckets).toHaveLength(10);
      expect(await page.locator("#analytics-granularity-error").textContent()).toBe("");
      await expect.poll(() => page.locator("#analytics-chart svg[role=img] > desc").first().textContent()).toContain("one point per day");
      expect(await unlabelledControls(page)).toEqual([]);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 });
        await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: `${width}px` }).toBeLessThanOrEqual(width);
      }
    },
    SLOW_MS,
  );

  it("draws a month of a shop's traffic legibly at 1280 and 390 px (the screenshots in docs/screenshots)", async () => {
    const org = await newOrg(server.url);
    await upsertItems(
      server.url,
      org,
      Array.from({ length: 40 }, (_, i) => ({ item_id: `sku-${i}`, status: i < 36 ? "active" : "inactive" })),
    );
    await seedMonth(org);
    await logIn(org.email, org.password);
    await page.getByRole("link", { name: "Analytics" }).click();
    await expect.poll(() => tableRows(), { timeout: 15_000 }).toHaveLength(4);
    const widths = await docScreenshots(page, "analytics");
    expect(widths[390]).toBeLessThanOrEqual(390);
    expect(widths[1280]).toBeLessThanOrEqual(1280);
  });

  it("says so when nothing was served in the range, and draws no empty chart", async () => {
    const org = await newOrg(server.url);
    await logIn(org.email, org.password);
    await page.getByRole("link", { name: "Analytics" }).click();
    await page.getByText("No recommendations served in this range.").waitFor();
    expect(await page.locator("#analytics-chart svg").count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await overflowsHorizontally(page)).toBe(false);
  });
});
