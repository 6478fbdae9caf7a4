import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigSchema, loadConfig } from "../../src/config.js";
import { resolveOptions } from "../../src/client/options.js";
import { ERROR_STATUS } from "../../src/errors.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** Read by glibc, not by the service (npm start sets it): the one setting the table has that the schema has not. */
const NOT_OURS = new Set(["MALLOC_MMAP_THRESHOLD_"]);

/** The paragraph "Error codes: `a`, `b` (400), `c` (401), …" as code → status. */
function readmeErrorCodes(): Map<string, number> {
  const paragraph = README.slice(README.indexOf("Error codes:")).split("\n\n")[0]!;
  const codes = new Map<string, number>();
  for (const group of paragraph.matchAll(/((?:`[a-z_]+`,?\s*)+)\((\d{3})\)/g)) {
    for (const code of group[1]!.matchAll(/`([a-z_]+)`/g)) codes.set(code[1]!, Number(group[2]));
  }
  return codes;
}

/** The settings table's rows as variable → the default the README gives (undefined: unset or prose). */
function readmeSettings(): Map<string, string | undefined> {
  const section = README.slice(README.indexOf("## Settings (environment)"));
  const rows = section.split("\n").filter((l) => l.startsWith("| `"));
  const settings = new Map<string, string | undefined>();
  for (const row of rows) {
    const [names, defaults] = row
      .split("|")
      .slice(1, 3)
      .map((c) => c.trim());
    const vars = [...names!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!);
    const parts = vars.length === 1 ? [defaults!] : defaults!.split(/ \/ |, /);
    vars.forEach((v, i) => settings.set(v, /^`([^`]+)`/.exec(parts[i] ?? "")?.[1]));
  }
  return settings;
}

/** The SDK options table's rows naming one option with a default in code, as option → that default. */
function readmeSdkDefaults(): Map<string, string> {
  const section = README.slice(README.indexOf("## The client SDK"), README.indexOf("## Calling it"));
  const rows = [...section.matchAll(/^\| `([a-zA-Z]+)` \| `([^`]+)` \|/gm)];
  return new Map(rows.map((m) => [m[1]!, m[2]!]));
}

const spelled = (v: unknown): string | undefined => (v === undefined ? undefined : typeof v === "boolean" ? (v ? "1" : "0") : String(v));

describe("the README", () => {
  it("lists every error code of src/errors.ts with its status, and no other", () => {
    expect(Object.fromEntries(readmeErrorCodes())).toEqual(ERROR_STATUS);
  });

  it("has a settings table row for every setting of the config schema, and no other", () => {
    const documented = [...readmeSettings().keys()].filter((v) => !NOT_OURS.has(v)).sort();
    expect(documented).toEqual(Object.keys(ConfigSchema.shape).sort());
  });

  it("gives each setting the default the config schema gives it", () => {
    const defaults = loadConfig({}) as Record<string, unknown>;
    const readme = readmeSettings();
    const differing = Object.keys(ConfigSchema.shape)
      .filter((v) => readme.get(v) !== spelled(defaults[v]))
      .map((v) => `${v}: README ${readme.get(v)}, schema ${spelled(defaults[v])}`);
    expect(differing).toEqual([]);
  });

  it("gives each SDK option with a default the value the client resolves it to", () => {
    const resolved = resolveOptions({ baseUrl: "http://x" }) as unknown as Record<string, unknown>;
    const withDefaults = Object.keys(resolved).filter((k) => !["baseUrl", "fetch", "onError"].includes(k));
    const readme = readmeSdkDefaults();
    expect([...readme.keys()].sort()).toEqual(withDefaults.sort());
    for (const k of withDefaults) expect(readme.get(k), k).toBe(JSON.stringify(resolved[k]));
  });

  it("sends no reader outside the repository: the API is documented by the OpenAPI reference and docs/", () => {
    const outside = [...README.matchAll(/\.\.\/shared\/[^\s`)]*/g)].map((m) => m[0]);
    expect(outside).toEqual([]);
    expect(README).toContain("`GET /docs`");
    expect(README).toContain("`GET /openapi.json`");
  });

  it("opens with a short path for a newcomer and a table of contents linking every section", () => {
    const headings = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(headings.slice(0, 2)).toEqual(["Start here", "Contents"]);
    const contents = README.slice(README.indexOf("## Contents"), README.indexOf("\n## ", README.indexOf("## Contents") + 1));
    const anchor = (h: string) =>
      h
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, "")
        .replaceAll(" ", "-");
    expect(headings.slice(2).filter((h) => !contents.includes(`(#${anchor(h)})`))).toEqual([]);
  });

  it("links the architecture page, and no document of the repository points at the first plan outside it", () => {
    expect(README).toContain("(docs/architecture.md)");
    const firstPlan = ["..", "shared", "ARCHITECTURE.md"].join("/");
    const docs = [
      "README.md",
      "CONTRIBUTING.md",
      ...readdirSync(new URL("../../docs/", import.meta.url))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    const pointing = docs.filter((f) => readFileSync(new URL(`../../${f}`, import.meta.url), "utf8").includes(firstPlan));
    expect(pointing).toEqual([]);
  });
});
