import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InviteSchema } from "../src/accounts/invitations.js";
import { AppError, appError, ERROR_STATUS, ERRORS, type ErrorCode, MAX_REPORTED_ISSUES } from "../src/errors.js";
import { parseValue } from "../src/http/routes/parse.js";
import { ItemSchema } from "../src/ingest/schemas.js";
import { validateRecords } from "../src/ingest/validate.js";
import { validateRecommend } from "../src/recommend/validate.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const codes = Object.keys(ERRORS) as ErrorCode[];

/** The error a call throws (the test fails when it throws none). */
function thrown(f: () => unknown): AppError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected a throw");
}

describe("the error catalog", () => {
  it("gives every code one 4xx or 5xx status and at least one message", () => {
    for (const code of codes) {
      expect(ERROR_STATUS[code], code).toBe(ERRORS[code].status);
      expect(ERRORS[code].status >= 400 && ERRORS[code].status < 600, code).toBe(true);
      expect(Object.keys(ERRORS[code].messages).length, code).toBeGreaterThan(0);
    }
  });

  it("fills each placeholder of a template from the parameters, and leaves none unfilled", () => {
    for (const code of codes) {
      for (const [key, template] of Object.entries(ERRORS[code].messages as Record<string, string>)) {
        const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const params = Object.fromEntries(names.map((n) => [n, `<${n}>`]));
        const made = (appError as (c: ErrorCode, k: string, p: Record<string, string>) => AppError)(code, key, params);
        expect(made.code).toBe(code);
        expect(made.status).toBe(ERRORS[code].status);
        expect(made.message, `${code}.${key}`).not.toMatch(/\{\w+\}/);
        for (const n of names) expect(made.message, `${code}.${key}`).toContain(`<${n}>`);
      }
    }
    expect(appError("not_found", "member", { id: "u-1" }).message).toBe("no member u-1 in this organisation");
  });

  it("carries headers with the failure, and adds an addendum keeping code and headers", () => {
    const e = appError("unavailable", "uploads", { running: 4 }, { "Retry-After": "5" });
    expect(e.headers).toEqual({ "Retry-After": "5" });
    const later = e.adding("storedBefore", { stored: 7 });
    expect(later.code).toBe("unavailable");
    expect(later.headers).toEqual({ "Retry-After": "5" });
    expect(later.message).toMatch(/^the server is running 4 uploads, .*; 7 rows before that were stored/);
  });

  it("is the only place src/ writes a failure's message: no file but the catalog constructs an AppError from text", () => {
    const files = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => relative(ROOT, join(ROOT, "src", f)));
    const constructing = files.filter((f) => readFileSync(join(ROOT, f), "utf8").includes("new AppError("));
    // parseSession rebuilds, on the main thread, an error the parse thread made from the catalog.
    expect(constructing.sort()).toEqual(["src/errors.ts", "src/upload/parseSession.ts"]);
  });
});

describe("validation messages", () => {
  it("read `where: what` alike from every validator: a missing field is `is required`, an unknown one is named", () => {
    const route = thrown(() => parseValue({ role: "ADMIN", extra: 1 }, InviteSchema));
    expect(route.code).toBe("validation_error");
    expect(route.message).toBe("email: is required; body: unknown field(s) 'extra'");

    const recommend = thrown(() => validateRecommend({ strategy: "trending", extra: 1 }));
    expect(recommend.code).toBe("validation_error");
    expect(recommend.message).toMatch(/^(?:[\w.[\]]+: [^;]+; )*body: unknown field\(s\) 'extra'/);

    const items = { plural: "items", singular: "item", schema: ItemSchema };
    const ingest = thrown(() =>
      validateRecords(
        [
          { item_id: "a", item_type: "t", status: "active" },
          { item_type: "t", status: "active", x: 1 },
        ],
        items,
      ),
    );
    expect(ingest.message).toBe("items[1].item_id: is required; items[1]: unknown field(s) 'x'");
    const single = thrown(() => validateRecords({ item_type: "t", status: "active" }, items));
    expect(single.message).toBe("item.item_id: is required");
  });

  it("name at most 20 problems, and count the invalid records when there are more", () => {
    const items = { plural: "items", singular: "item", schema: ItemSchema };
    const bad = Array.from({ length: 30 }, () => ({ item_type: "t", status: "active" }));
    const e = thrown(() => validateRecords(bad, items));
    expect(e.message.split("; ")).toHaveLength(MAX_REPORTED_ISSUES);
    expect(e.message).toMatch(/items\[19\]\.item_id: is required \(30 invalid records in all\)$/);
  });
});
