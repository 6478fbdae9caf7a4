import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The directories whose code must not use WebAssembly (the design names a WASM-free in-memory index). */
const CHECKED = ["workers/index"];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Lines that name WebAssembly, or import a module from a `wasm` directory. */
function webAssemblyLines(text: string): string[] {
  return text.split("\n").filter((line) => /WebAssembly|\bwasm\b|\/wasm\//i.test(line));
}

describe("WebAssembly", () => {
  it("is mentioned by no file under workers/index/", () => {
    const files = CHECKED.flatMap(sourceFiles);
    expect(files).toContain("workers/index/textStore.ts");
    const uses = files.flatMap((f) => webAssemblyLines(readFileSync(join(ROOT, f), "utf8")).map((line) => `${f}: ${line.trim()}`));
    expect(uses).toEqual([]);
  });

  it("is found in a line that compiles a module, names its memory, or imports it", () => {
    expect(webAssemblyLines('const m = new WebAssembly.Module(bytes);\nconst x = 1;\nimport { compiled } from "../wasm/module.js";')).toHaveLength(2);
    expect(webAssemblyLines("// one ArrayBuffer, copied with copyWithin")).toEqual([]);
  });
});
