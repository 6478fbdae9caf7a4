import { createHmac, randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { launchBrowser, overflowsHorizontally, screenshots, unlabelledControls } from "../helpers/browser.js";
import { tokenMailedTo } from "../helpers/mail.js";
import { accept, addMember, INVITATION_SUBJECT, invite, loginToken, MEMBER_PASSWORD } from "../helpers/members.js";
import { eventually, recommend, sendEvents, upsertItems } from "../helpers/recommend.js";
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

const dashboard = () => `${server.url}/dashboard`;

/** The API keys page (the Quick start has a "Generate key pair" button of its own, for a shop with no key yet). */
const keysPage = () => page.locator("#view-keys");

async function register(): Promise<string> {
  const email = `web-${randomUUID()}@example.com`;
  await page.goto(dashboard());
  await page.getByLabel("Organisation name").fill("Web shop");
  await page.locator("#register-email").fill(email);
  await page.locator("#register-password").fill("correct horse battery");
  await page.getByRole("button", { name: "Create organisation" }).click();
  await page.getByRole("heading", { name: "Quick start" }).waitFor();
  return email;
}

async function logIn(email: string, password = MEMBER_PASSWORD): Promise<void> {
  await page.goto(dashboard());
  await page.locator("#login-email").fill(email);
  await page.locator("#login-password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Quick start" }).waitFor();
}

const navLinks = () => page.getByRole("navigation", { name: "Dashboard sections" }).getByRole("link").allTextContents();

describe("web dashboard", () => {
  it("registers, generates keys, calls the API with the shown key, revokes it, and the key then gets 401", async () => {
    await register();
    await screenshots(page, "quick-start");
    await page.getByRole("link", { name: "API keys" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue()).toMatch(/^svc_sk_/);
    const pk = await page.getByLabel("Publishable key", { exact: true }).inputValue();
    const sk = await page.getByLabel("Secret key", { exact: true }).inputValue();
    await expect.poll(() => page.getByText("shown only this once").isVisible()).toBe(true);
    await screenshots(page, "keys-new-pair");

    const event = { user_id: "u1", event_family: "engagement", event_name: "view", item_id: "i1" };
    expect((await call(server.url, "POST", "/v1/events/ingest", { apiKey: pk, json: event })).status).toBe(202);
    expect(
      (await call(server.url, "POST", "/v1/items/upsert", { apiKey: sk, json: { item_id: "i1", item_type: "t", status: "active" } })).status,
    ).toBe(202);

    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.getByLabel("Secret key", { exact: true }).isVisible()).toBe(false);
    await page.getByRole("button", { name: /^Revoke the pair/ }).click();
    await expect.poll(() => page.getByRole("dialog").isVisible()).toBe(true);
    await screenshots(page, "keys-revoke-confirm");
    await page.getByRole("button", { name: "Revoke key pair" }).click();
    await expect.poll(() => page.locator("#keys-rows").textContent()).toContain("revoked");
    await screenshots(page, "keys-revoked");

    const after = await call(server.url, "POST", "/v1/events/ingest", { apiKey: pk, json: event });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("revoked_api_key");
    expect(
      (await call(server.url, "POST", "/v1/items/upsert", { apiKey: sk, json: { item_id: "i2", item_type: "t", status: "active" } })).status,
    ).toBe(401);
  });

  it("shows the SDK snippet with the organisation's publishable key, and the snippet works as pasted into a page", async () => {
    await register();
    await page.getByRole("link", { name: "API keys" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue()).toMatch(/^svc_sk_/);
    const pk = await page.getByLabel("Publishable key", { exact: true }).inputValue();
    const sk = await page.getByLabel("Secret key", { exact: true }).inputValue();
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("link", { name: "Quick start" }).click();
    await expect.poll(() => page.locator("#start-sdk-browser").textContent()).toContain(pk);
    const snippet = (await page.locator("#start-sdk-browser").textContent())!;
    expect(snippet).toContain(`import { RecommendationClient } from "${server.url}/sdk/recommendations.js"`);
    expect(await page.locator("#start-sdk-node").textContent()).toContain(`publishableKey: "${pk}"`);
    expect(await page.getByRole("link", { name: "API reference" }).getAttribute("href")).toBe("/docs");

    expect(
      (await call(server.url, "POST", "/v1/items/upsert", { apiKey: sk, json: { item_id: "item-1", item_type: "t", status: "active" } })).status,
    ).toBe(202);
    // A visitor's browser: its own context, without the dashboard's test-only X-Forwarded-For header.
    const visitor = await browser.newContext();
    const shop = await visitor.newPage();
    await shop.setContent(snippet);
    // The snippet views item-1 anonymously, then identifies as user-1: the view becomes user-1's once its batch is sent.
    const { value } = await eventually(
      async () =>
        (await call(server.url, "POST", "/v1/recommend", { apiKey: pk, json: { strategy: "recently-viewed", user_id: "user-1" } })).body.data,
      (data) => data.recommended_items.includes("item-1"),
      15_000,
    );
    expect(value.recommended_items).toEqual(["item-1"]);
    await visitor.close();
  });

  it("keeps the session in an HttpOnly, SameSite=Strict cookie and nothing in storage", async () => {
    await register();
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: "recsvc_session", httpOnly: true, sameSite: "Strict" });
    expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(["", 0, 0]);
    await page.reload();
    await page.getByRole("heading", { name: "Quick start" }).waitFor();
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Sign in to your organisation" }).waitFor();
    expect(await page.context().cookies()).toEqual([]);
  });

  it("says the same thing for a wrong password and an unknown email", async () => {
    const email = await register();
    await page.getByRole("button", { name: "Log out" }).click();
    const messages: string[] = [];
    for (const [who, password] of [
      [email, "wrong password 123"],
      [`nobody-${randomUUID()}@example.com`, "wrong password 123"],
    ]) {
      await page.locator("#login-email").fill(who);
      await page.locator("#login-password").fill(password);
      await page.getByRole("button", { name: "Log in" }).click();
      await expect.poll(() => page.locator("#login-form [role=alert]").textContent()).not.toBe("");
      messages.push((await page.locator("#login-form [role=alert]").textContent()) ?? "");
      if (messages.length === 2) await screenshots(page, "sign-in-error");
      await page.locator("#login-form [role=alert]").evaluate((n) => (n.textContent = ""));
    }
    expect(messages[0]).toBe("wrong email or password");
    expect(messages[1]).toBe(messages[0]);
  });

  it("uploads a CSV with a bad row, showing the progress bar and the refused line", async () => {
    await register();
    await page.getByRole("link", { name: "Upload" }).click();
    const csv = "item_id,item_type,status,price\nw1,book,active,12.5\nw2,book,sometimes,3\nw3,book,active,7\n";
    await page.getByLabel("File", { exact: true }).setInputFiles({ name: "items.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect.poll(() => page.locator("#upload-summary").textContent()).toBe("2 items stored, 1 rows refused.");
    expect(await page.locator("#upload-progress").getAttribute("value")).toBe("100");
    expect(await page.locator("#upload-errors tr").allTextContents()).toEqual([expect.stringMatching(/^3.*status/)]);
    await screenshots(page, "upload-result");
    const { rows } = await server.db().query("SELECT item_id FROM items WHERE item_id IN ('w1', 'w2', 'w3') ORDER BY item_id");
    expect(rows.map((r) => r.item_id)).toEqual(["w1", "w3"]);
  });

  it("sends a file too large for one request in parts cut at line ends, reporting the file's own line numbers", async () => {
    await register();
    await page.getByRole("link", { name: "Upload" }).click();
    // The real cut is at 512 MiB (this HTTP layer refuses a Content-Length of 10^9 or more); here, every ~60 bytes.
    await page.evaluate(() => (document.documentElement.dataset.uploadPartBytes = "60"));
    const lines = ["item_id,item_type,status"];
    for (let i = 2; i <= 30; i++) lines.push(`part${i},book,${i % 7 === 0 ? "unknown" : "active"}`);
    const file = Buffer.from(lines.join("\n") + "\n");
    let requests = 0;
    page.on("request", (r) => void (r.url().endsWith("/v1/upload/items") && requests++));
    await page.getByLabel("File", { exact: true }).setInputFiles({ name: "big.csv", mimeType: "text/csv", buffer: file });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect.poll(() => page.locator("#upload-summary").textContent()).toBe("25 items stored, 4 rows refused.");
    expect(requests).toBeGreaterThan(5); // each part after the first stands on the header row it is given
    expect((await page.locator("#upload-errors tr td:first-child").allTextContents()).map(Number)).toEqual([7, 14, 21, 28]);
    const { rows } = await server.db().query("SELECT count(*)::int AS n FROM items WHERE item_id LIKE 'part%'");
    expect(rows[0].n).toBe(25);
  });

  it("shows an OWNER members, the audit log and analytics, tidy at 1280 and 390 px, every control labelled", async () => {
    await register();
    await page.getByRole("link", { name: "Members" }).click();
    const email = `dev-${randomUUID()}@example.com`;
    await page.locator("#member-email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("DEVELOPER");
    await page.getByRole("button", { name: "Invite member" }).click();
    await accept(server, await tokenMailedTo(server, email, INVITATION_SUBJECT));
    await page.reload();
    await expect.poll(() => page.locator("#members-rows").textContent()).toContain(email);
    await page.getByLabel(`Role of ${email}`).selectOption("ADMIN");
    await expect
      .poll(
        async () =>
          (
            await call(server.url, "POST", "/auth/login", {
              json: { email, password: "member password 1" },
              headers: { "x-forwarded-for": "10.9.9.9" },
            })
          ).body.data?.user.role,
      )
      .toBe("ADMIN");
    await screenshots(page, "members");
    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await expect.poll(() => page.locator("#audit-rows").textContent()).toContain("member.role_changed");
    await screenshots(page, "audit-log");
    await page.getByRole("link", { name: "Analytics" }).click();
    await page.getByText("No recommendations served").waitFor();
    await screenshots(page, "analytics");
    await page.getByRole("link", { name: "API keys" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await page.getByLabel("Secret key", { exact: true }).waitFor();
    for (const view of ["start", "keys", "members", "upload", "analytics", "experiments", "try", "rules", "identity", "settings", "audit"]) {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${dashboard()}#${view}`);
        await page.locator(`section[data-view=${view}]`).waitFor();
        expect(await overflowsHorizontally(page), `${view} at ${width}px`).toBe(false);
        expect(await unlabelledControls(page), `${view} at ${width}px`).toEqual([]);
      }
    }
  });

  it("lets an OWNER generate the identity secret, shown once, and turn verification on: the publishable key then needs user_hash", async () => {
    await register();
    await page.getByRole("link", { name: "API keys" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await expect.poll(() => page.getByLabel("Publishable key", { exact: true }).inputValue()).toMatch(/^svc_pk_/);
    const pk = await page.getByLabel("Publishable key", { exact: true }).inputValue();
    await page.getByRole("link", { name: "Identity verification" }).click();
    await expect.poll(() => page.locator("#identity-status").textContent()).toContain("off; no secret yet");
    expect(await page.getByRole("button", { name: "Turn on" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Generate secret" }).click();
    await expect.poll(() => page.getByLabel("Identity secret", { exact: true }).inputValue()).toMatch(/^[0-9a-f]{64}$/);
    const secret = await page.getByLabel("Identity secret", { exact: true }).inputValue();
    await screenshots(page, "identity-verification");
    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.getByLabel("Identity secret", { exact: true }).isVisible()).toBe(false);
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect.poll(() => page.locator("#identity-status").textContent()).toContain("Verification is on");
    const ask = (extra: Record<string, unknown>) =>
      call(server.url, "POST", "/v1/recommend", { apiKey: pk, json: { strategy: "buy-again", user_id: "u-1", ...extra } });
    expect((await ask({})).status).toBe(403);
    expect((await ask({ user_hash: createHmac("sha256", secret).update("u-1").digest("hex") })).status).toBe(200);
    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await expect.poll(() => page.locator("#audit-rows").textContent()).toContain("identity_verification.enabled");
  });

  it("lets an OWNER keep the organisation's events for fewer days than the service, audited, and go back to the service's", async () => {
    await register();
    await page.getByRole("link", { name: "Settings" }).click();
    await expect.poll(() => page.locator("#retention-status").textContent()).toContain("kept 400 days (the service's");
    await page.getByLabel("Keep events for (days)").fill("90");
    await page.getByRole("button", { name: "Save retention" }).click();
    await expect.poll(() => page.locator("#retention-status").textContent()).toContain("kept 90 days (your organisation's");
    await screenshots(page, "data-retention");
    await page.getByLabel("Keep events for (days)").fill("401");
    await page.getByRole("button", { name: "Save retention" }).click();
    await expect
      .poll(() => page.locator("#retention-days-error").textContent())
      .toBe("Enter a whole number of days from 1 to 400 (the service's retention).");
    await page.getByRole("button", { name: "Use the service's retention" }).click();
    await expect.poll(() => page.locator("#retention-status").textContent()).toContain("kept 400 days (the service's");
    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await expect.poll(() => page.locator("#audit-rows").textContent()).toContain("events_retention_days=90");
  });

  it("shows a DEVELOPER the publishable key in full with a copy button, the secret masked, no generate or revoke, and no audit log", async () => {
    const org = await newOrg(server.url);
    const dev = await addMember(server, org, "DEVELOPER");
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await logIn(dev.email);
    expect(await navLinks()).toEqual(["Quick start", "API keys", "Members", "Upload", "Analytics", "Experiments", "Try it", "Rules"]);
    await expect.poll(() => page.locator("#start-pk").textContent()).toBe(org.pk);
    await page.getByRole("link", { name: "API keys" }).click();
    await expect.poll(() => page.locator("#keys-rows").textContent()).toContain(org.pk);
    expect(await page.locator("#keys-rows").textContent()).toContain(`svc_sk_…${org.sk.slice(-4)}`);
    expect(await page.locator("#keys-rows").textContent()).not.toContain(org.sk);
    await page.getByRole("button", { name: /^Copy the publishable key of the pair/ }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(org.pk);
    expect(await page.getByRole("button", { name: "Generate key pair" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: /^Revoke/ }).count()).toBe(0);
    await screenshots(page, "keys-developer");
    await page.goto(`${dashboard()}#audit`);
    await expect.poll(() => page.locator("section[data-view=start]").isVisible()).toBe(true);
  });

  it("removes a member after a confirmation, which ends that member's session at once", async () => {
    const email = await register();
    const member = { email: `dev-${randomUUID()}@example.com` };
    await accept(server, await invite(server, await loginToken(server, email, "correct horse battery"), member.email, "DEVELOPER"));
    const memberToken = await loginToken(server, member.email);
    await page.getByRole("link", { name: "Members" }).click();
    await expect.poll(() => page.locator("#members-rows").textContent()).toContain(member.email);
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: `Remove ${member.email}` }).click();
    await expect.poll(() => page.locator("#members-rows").textContent()).not.toContain(member.email);
    expect((await call(server.url, "GET", "/v1/me", { token: memberToken })).status).toBe(401);
  });

  it("changes the signed-in account's password: a wrong current one is shown as an error, the right one ends the other sessions", async () => {
    const email = await register();
    const other = await loginToken(server, email, "correct horse battery");
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel(/^New password/).fill("a new long passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => page.locator("#password-form [data-error]").textContent(), { timeout: 10_000 }).toContain("old password is wrong");
    await page.getByLabel("Current password").fill("correct horse battery");
    await page.getByRole("button", { name: "Change password" }).click();
    // scrypt checks the old password and hashes the new one: seconds on a loaded 2-core machine, not the poll's default second.
    await expect.poll(async () => (await call(server.url, "GET", "/v1/me", { token: other })).status, { timeout: 10_000 }).toBe(401);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await page.locator("#signin").isVisible()).toBe(false);
  });

  it("shows a MEMBER no keys, upload or audit log, and the members list read-only", async () => {
    const org = await newOrg(server.url);
    const member = await addMember(server, org, "MEMBER");
    await logIn(member.email);
    expect(await navLinks()).toEqual(["Quick start", "Members", "Analytics", "Experiments", "Try it", "Rules"]);
    expect(await page.locator("#start-pk").textContent()).toContain("ask an OWNER or ADMIN");
    await page.getByRole("link", { name: "Members" }).click();
    await expect.poll(() => page.locator("#members-rows").textContent()).toContain(org.email);
    expect(await page.getByRole("button", { name: "Invite member" }).isVisible()).toBe(false);
    expect(await page.locator("#members-rows select").count()).toBe(0);
    expect(await page.locator("#members-rows button").count()).toBe(0);
    await screenshots(page, "members-member");
  });

  it("can be used with the keyboard alone: log in, move between sections, generate a key pair", async () => {
    const org = await newOrg(server.url);
    await page.goto(dashboard());
    await page.locator("#login-email").waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await page.locator("#login-email").focus();
    await page.keyboard.type(org.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(org.password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Quick start" }).waitFor();
    await page.getByRole("link", { name: "API keys" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await keysPage().getByRole("button", { name: "Generate key pair" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("new-sk");
  });
});

describe("web dashboard rough edges (issue 39)", () => {
  /** The lines a node's text takes: a key on one line never wraps mid-token. */
  const lineCount = (selector: string) =>
    page
      .locator(selector)
      .evaluateAll((nodes) =>
        nodes.map((n) => Math.round(n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).lineHeight || "16") || 1)),
      );

  it("leads GET / to the dashboard's sign-in", async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole("heading", { name: "Sign in to your organisation" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard");
  });

  it("says in plain words, field by field, what is wrong with a registration, from its own checks and from the API's", async () => {
    await page.goto(dashboard());
    await page.locator("#register-email").fill("not an email");
    await page.locator("#register-password").fill("short");
    await page.getByRole("button", { name: "Create organisation" }).click();
    await expect.poll(() => page.locator("#register-org-error").textContent()).toBe("Enter your organisation's name (up to 200 characters).");
    expect(await page.locator("#register-email-error").textContent()).toBe("Enter your email address, like name@example.com.");
    expect(await page.locator("#register-password-error").textContent()).toBe("Enter a password of 10 characters or more.");
    expect(await page.locator("#register-org").getAttribute("aria-invalid")).toBe("true");
    await screenshots(page, "register-errors");
    // An address the page lets through and the API refuses (no top-level domain of two letters): the same plain words.
    await page.getByLabel("Organisation name").fill("Web shop");
    await page.locator("#register-email").fill("name@example.c");
    await page.locator("#register-password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create organisation" }).click();
    await expect.poll(() => page.locator("#register-email-error").textContent()).toBe("Enter your email address, like name@example.com.");
    expect(await page.locator("#register-org-error").textContent()).toBe("");
    const text = (await page.locator("#register-form").textContent()) ?? "";
    expect(text).not.toMatch(/Too small|expected string|must be an email address/);
  });

  it("offers key generation on the Quick start before a key exists, and copies each snippet with the key in it", async () => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await register();
    await expect.poll(() => page.locator("#start-pk").textContent()).toBe("(generate a key pair first)");
    await screenshots(page, "quick-start-no-key");
    await page.locator("#start-no-key").getByRole("button", { name: "Generate key pair" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue()).toMatch(/^svc_sk_/);
    const pk = await page.getByLabel("Publishable key", { exact: true }).inputValue();
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("link", { name: "Quick start" }).click();
    await expect.poll(() => page.locator("#start-pk").textContent()).toBe(pk);
    expect(await page.locator("#start-no-key").isVisible()).toBe(false);
    for (const [button, id] of [
      ["Copy the web page snippet", "start-sdk-browser"],
      ["Copy the Node snippet", "start-sdk-node"],
      ["Copy the curl command that sends an event", "start-curl-event"],
      ["Copy the curl command that asks for recommendations", "start-curl-recommend"],
      ["Copy the publishable key", "start-pk"],
    ]) {
      await page.getByRole("button", { name: button, exact: true }).click();
      const shown = await page.locator(`#${id}`).textContent();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { message: button }).toBe(shown);
      expect(shown).toContain(pk);
    }
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await lineCount("#start-pk"), `${width}px`).toEqual([1]);
      expect(await overflowsHorizontally(page), `${width}px`).toBe(false);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator("#toast").evaluate((t) => t.classList.remove("shown")); // the last "Copied." would cover the snippets
    await screenshots(page, "quick-start");
  });

  it("tells a DEVELOPER on the Quick start without a key to ask for one, with no button to generate it", async () => {
    const email = await register();
    const owner = await loginToken(server, email, "correct horse battery");
    const dev = { email: `dev-${randomUUID()}@example.com` };
    await accept(server, await invite(server, owner, dev.email, "DEVELOPER"));
    await page.getByRole("button", { name: "Log out" }).click();
    await logIn(dev.email);
    await expect.poll(() => page.locator("#start-no-key-text").textContent()).toContain("ask an OWNER or ADMIN");
    expect(await page.locator("#start-generate").isVisible()).toBe(false);
  });

  it("keeps key strings whole on one line and the Revoke button in view at 1280 and 390 px", async () => {
    await register();
    await page.getByRole("link", { name: "API keys" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue()).toMatch(/^svc_sk_/);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await expect.poll(() => page.locator("#keys-rows .key-pair").count()).toBe(2);
    await page.getByRole("button", { name: "I have stored it" }).click();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      expect(await lineCount("#keys-rows code.key"), `${width}px`).toEqual([1, 1, 1, 1]);
      expect(await overflowsHorizontally(page), `${width}px`).toBe(false);
      for (const revoke of await page.getByRole("button", { name: /^Revoke the pair/ }).all()) {
        const box = (await revoke.boundingBox())!;
        expect(box.x, `${width}px`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${width}px`).toBeLessThanOrEqual(width);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshots(page, "keys");
  });

  it("writes no key_pair.viewed entry for visits to Quick start and API keys, and shows the organisation's creation", async () => {
    const email = await register();
    for (let i = 0; i < 3; i++) {
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      await page.getByRole("link", { name: "Quick start" }).click();
      await page.getByRole("heading", { name: "Quick start" }).waitFor();
    }
    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await expect.poll(() => page.locator("#audit-rows tr").count()).toBeGreaterThan(0);
    const rows = await page.locator("#audit-rows tr").allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain("organisation.created");
    expect(rows[0]).toContain(email);
    expect(rows[0]).toContain("Web shop");
    const { rows: viewed } = await server
      .db()
      .query("SELECT count(*)::int AS n FROM audit_log WHERE action = 'key_pair.viewed' AND actor_email = $1", [email]);
    expect(viewed[0].n).toBe(0);
  });

  it("shows a refused upload as refused where the progress was, not as 100%, storing…", async () => {
    await register();
    await page.getByRole("link", { name: "Upload" }).click();
    await page
      .getByLabel("File", { exact: true })
      .setInputFiles({ name: "items.csv", mimeType: "text/csv", buffer: Buffer.from("item_id,status\nx,active\n") });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect.poll(() => page.locator("#upload-progress-text").textContent()).toMatch(/^Refused: .*item_type/);
    expect(await page.locator("#upload-form [data-error]").textContent()).toContain("item_type");
    expect(await page.locator("#upload-result").isVisible()).toBe(false);
    await screenshots(page, "upload-refused");
  });

  it("forgets the page's state at logout: the next login in the same tab sees no file, progress, result, error or secret of the last", async () => {
    const email = await register();
    await page.getByRole("link", { name: "API keys" }).click();
    await keysPage().getByRole("button", { name: "Generate key pair" }).click();
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue()).toMatch(/^svc_sk_/);
    await page.getByRole("link", { name: "Upload" }).click();
    await page
      .getByLabel("File", { exact: true })
      .setInputFiles({ name: "items.csv", mimeType: "text/csv", buffer: Buffer.from("item_id,status\nx,active\n") });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect.poll(() => page.locator("#upload-progress-text").textContent()).toMatch(/^Refused/);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.locator("#login-email").fill(email);
    await page.locator("#login-password").fill("correct horse battery");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Quick start" }).waitFor();
    expect(new URL(page.url()).hash).toBe("");
    await page.getByRole("link", { name: "Upload" }).click();
    await page.getByRole("heading", { name: "Upload a file" }).waitFor();
    expect(await page.locator("#upload-file").evaluate((i: HTMLInputElement) => i.files?.length)).toBe(0);
    expect(await page.locator("#upload-progress-wrap").isVisible()).toBe(false);
    expect(await page.locator("#upload-progress-text").textContent()).toBe("");
    expect(await page.locator("#upload-result").isVisible()).toBe(false);
    expect(await page.locator("#upload-form [data-error]").textContent()).toBe("");
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await page.locator("#new-key").isVisible()).toBe(false);
    expect(await page.locator("#new-sk").inputValue()).toBe("");
  });

  it("uploads a CSV of past events from the Upload page, reporting the refused line, and stores the others with their timestamps", async () => {
    const email = await register();
    await page.getByRole("link", { name: "Upload" }).click();
    await page.getByLabel("Records").selectOption("events");
    const csv =
      "user_id,event_family,event_name,item_id,timestamp\nh1,conversion,purchase,sku-1,2024-10-01T09:00:00Z\nh2,conversion,purchase,sku-1,last week\nh3,engagement,view,sku-2,2024-10-02T09:00:00Z\n";
    await page.getByLabel("File", { exact: true }).setInputFiles({ name: "orders.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await expect.poll(() => page.locator("#upload-summary").textContent()).toBe("2 events stored, 1 rows refused.");
    expect(await page.locator("#upload-errors tr").allTextContents()).toEqual([expect.stringMatching(/^3.*timestamp/)]);
    expect(await page.locator("#upload-progress-text").textContent()).toBe("Done.");
    const { rows } = await server.db().query(
      `SELECT e.user_id, e.occurred_at FROM events e JOIN organisations o ON o.seq = e.org JOIN accounts a ON a.org_id = o.id
       WHERE a.email = $1 ORDER BY e.user_id`,
      [email],
    );
    expect(rows.map((r) => [r.user_id, r.occurred_at.toISOString()])).toEqual([
      ["h1", "2024-10-01T09:00:00.000Z"],
      ["h3", "2024-10-02T09:00:00.000Z"],
    ]);
  });

  it("lets an OWNER set the organisation's rate limit, refusing out-of-bounds values in plain words, audited, and go back to the service's", async () => {
    const org = await newOrg(server.url);
    await logIn(org.email, org.password);
    await page.getByRole("link", { name: "Settings" }).click();
    await expect.poll(() => page.locator("#limits-status").textContent()).toContain("1,000 requests per 900 seconds (the service's");
    await page.getByLabel("Requests per window").fill("5000");
    await page.getByLabel("Window (seconds)").fill("30");
    await page.getByRole("button", { name: "Save rate limit" }).click();
    await expect
      .poll(() => page.locator("#limits-window-error").textContent())
      .toBe("Enter a whole number of seconds from 60 (a minute) to 86,400 (a day).");
    await page.getByLabel("Window (seconds)").fill("600");
    await page.getByRole("button", { name: "Save rate limit" }).click();
    await expect.poll(() => page.locator("#limits-status").textContent()).toContain("5,000 requests per 600 seconds (your organisation's");
    expect(await page.locator("#limits-window-error").textContent()).toBe("");
    await screenshots(page, "rate-limit");
    const r = await call(server.url, "POST", "/v1/events/ingest", {
      apiKey: org.pk,
      json: { user_id: "u", event_family: "engagement", event_name: "view" },
    });
    expect(r.headers.get("ratelimit-policy")).toBe("5000;w=600");
    await page.getByRole("button", { name: "Use the service's rate limit" }).click();
    await expect.poll(() => page.locator("#limits-status").textContent()).toContain("(the service's");
    await page.getByRole("link", { name: "Audit log", exact: true }).click();
    await expect.poll(() => page.locator("#audit-rows").textContent()).toContain("rate_limit=5000;w=600");
  });

  describe("Try it and Rules", () => {
    /** A shop of three items, `popular` ranking shoe, hat, sock; only the shoe and the hat have a title. */
    async function shop() {
      const org = await newOrg(server.url);
      await upsertItems(server.url, org, [
        { item_id: "shoe", attributes: { title: "Red shoe", brand: "A" } },
        { item_id: "hat", attributes: { title: "Blue hat", brand: "B" } },
        { item_id: "sock", attributes: { brand: "B" } },
      ]);
      await sendEvents(server.url, org, [
        ...[0, 1, 2].map((u) => ({ user: `u${u}`, item: "shoe", hoursAgo: 1 })),
        ...[0, 1].map((u) => ({ user: `u${u}`, item: "hat", hoursAgo: 1 })),
        { user: "u0", item: "sock", hoursAgo: 1 },
      ]);
      await eventually(
        async () => (await recommend(server.url, org, { strategy: "popular" })).body.data?.recommended_items,
        (ids) => JSON.stringify(ids) === JSON.stringify(["shoe", "hat", "sock"]),
        15_000,
      );
      return org;
    }

    const tryIt = () => page.locator("#view-try");
    const rules = () => page.locator("#view-rules");
    const resultTexts = (id: string) => page.locator(`#${id} .preview-results li`).allTextContents();

    it("shows a preview's results with their titles and explanation, and says which filter removed everything", async () => {
      const org = await shop();
      await logIn(org.email, org.password);
      await page.getByRole("link", { name: "Try it" }).click();
      await tryIt().getByLabel("Strategy").selectOption("popular");
      await tryIt().getByLabel("Scenario").fill("try-it");
      await tryIt().getByRole("button", { name: "Preview" }).click();
      await expect.poll(() => resultTexts("try-result")).toHaveLength(3);
      const rows = await resultTexts("try-result");
      expect(rows[0]).toContain("Red shoe");
      expect(rows[0]).toContain("from popular");
      expect(rows[0]).toContain("position before rules 1");
      expect(rows[2]).toContain("sock");
      expect(await page.locator("#try-result").textContent()).toContain("model: popularity");
      await screenshots(page, "try-it");
      await tryIt()
        .getByLabel(/^Filters/)
        .fill('{"colour": "red"}');
      await tryIt().getByRole("button", { name: "Preview" }).click();
      await expect.poll(() => page.locator("#try-result").textContent()).toContain("No item was left after filter:colour");
      expect(await page.locator("#try-result").textContent()).toContain("No results.");
      await tryIt()
        .getByLabel(/^Filters/)
        .fill("{not json");
      await tryIt().getByRole("button", { name: "Preview" }).click();
      await expect.poll(() => page.locator("#try-form [data-error]").textContent()).toContain("filters");
      // Served rows are written in order: once a later recommend's row is there, the previews' would be too.
      expect((await recommend(server.url, org, { strategy: "popular", scenario: "after-try" })).status).toBe(200);
      const servedRows = async (scenario: string) =>
        (await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM served_recommendations WHERE scenario = $1", [scenario])).rows[0]!.n;
      await eventually(
        () => servedRows("after-try"),
        (n) => n === 1,
        10_000,
      );
      expect(await servedRows("try-it")).toBe(0);
    });

    it("creates a rule on the Rules page and shows it applied in the preview beside the form, then disables and deletes it", async () => {
      const org = await shop();
      await logIn(org.email, org.password);
      await page.getByRole("link", { name: "Rules" }).click();
      await expect.poll(() => page.locator("#rules-rows").textContent()).toContain("No rules yet.");
      await expect.poll(() => resultTexts("rule-preview-result")).toHaveLength(3);
      expect((await resultTexts("rule-preview-result"))[0]).toContain("Red shoe");
      await rules().getByLabel("Name", { exact: true }).fill("Hat first");
      await rules().getByLabel("Action").selectOption("pin");
      await rules()
        .getByLabel(/^Items/)
        .fill('{"item_id": ["hat"]}');
      await rules().getByLabel("Position").fill("1");
      await page.getByRole("button", { name: "Create rule" }).click();
      await expect.poll(() => page.locator("#rules-rows").textContent()).toContain("Hat first");
      await expect.poll(async () => (await resultTexts("rule-preview-result"))[0]).toContain("Blue hat");
      const first = (await resultTexts("rule-preview-result"))[0]!;
      expect(first).toContain("pinned:Hat first");
      expect(first).toContain('pin "Hat first"');
      expect(first).toContain("position before rules 2");
      await screenshots(page, "rules");
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        expect(await overflowsHorizontally(page), `rules at ${width}px`).toBe(false);
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      await page.getByRole("button", { name: "Disable the rule Hat first" }).click();
      await expect.poll(async () => (await resultTexts("rule-preview-result"))[0]).toContain("Red shoe");
      expect(await page.locator("#rules-rows").textContent()).toContain("no");
      await page.getByRole("button", { name: "Edit the rule Hat first" }).click();
      expect(await rules().getByLabel("Name", { exact: true }).inputValue()).toBe("Hat first");
      await rules().getByLabel("Position").fill("2");
      await rules().getByLabel("Enabled").check();
      await page.getByRole("button", { name: "Save rule" }).click();
      await expect.poll(async () => (await resultTexts("rule-preview-result"))[1]).toContain("pinned:Hat first");
      const listed = await call(server.url, "GET", "/v1/rules", { apiKey: org.sk });
      expect(listed.body.data.rules).toMatchObject([{ name: "Hat first", enabled: true, action: "pin", position: 2, items: { item_id: ["hat"] } }]);

      await page.getByRole("button", { name: "Delete the rule Hat first" }).click();
      await page.getByRole("button", { name: "Delete rule" }).click();
      await expect.poll(() => page.locator("#rules-rows").textContent()).toContain("No rules yet.");
      expect((await call(server.url, "GET", "/v1/rules", { apiKey: org.sk })).body.data.rules).toEqual([]);
    });

    it("shows a MEMBER the rules read-only, and lets them preview", async () => {
      const org = await shop();
      const created = await call(server.url, "POST", "/v1/rules", {
        apiKey: org.sk,
        json: { name: "No socks", enabled: true, action: "block", items: { item_id: ["sock"] } },
      });
      expect(created.status).toBe(201);
      const member = await addMember(server, org, "MEMBER");
      await logIn(member.email);
      await page.getByRole("link", { name: "Rules" }).click();
      await expect.poll(() => page.locator("#rules-rows").textContent()).toContain("No socks");
      expect(await page.locator("#rule-form").isVisible()).toBe(false);
      expect(await page.locator("#rules-rows button").count()).toBe(0);
      expect(await page.getByText("Only an OWNER, ADMIN or DEVELOPER changes rules.").isVisible()).toBe(true);
      await expect.poll(() => resultTexts("rule-preview-result")).toHaveLength(2);
      expect(await page.locator("#rule-preview-result").textContent()).toContain("blocked:No socks removed 1");
    });
  });
});
