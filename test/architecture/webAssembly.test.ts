import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The service's code, none of which may use WebAssembly (the design names a WASM-free in-memory index). */
const CHECKED = ["src", "workers"];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Lines that name WebAssembly, import a module from a `wasm` directory, or hold a module's magic bytes. */
function webAssemblyLines(text: string): string[] {
  return text.split("\n").filter((line) => /WebAssembly|\bwasm\b|\/wasm\/|\\0asm|0x00,\s*0x61,\s*0x73,\s*0x6d/i.test(line));
}

describe("WebAssembly", () => {
  it("is mentioned by no file under src/ or workers/", () => {
    const files = CHECKED.flatMap(sourceFiles);
    expect(files).toContain("workers/index/textStore.ts");
    expect(files).toContain("workers/vectors/search.ts");
    const uses = files.flatMap((f) => webAssemblyLines(readFileSync(join(ROOT, f), "utf8")).map((line) => `${f}: ${line.trim()}`));
    expect(uses).toEqual([]);
  });

  it("is found in a line that compiles a module, names its memory, or imports it", () => {
    expect(webAssemblyLines('const m = new WebAssembly.Module(bytes);\nconst x = 1;\nimport { compiled } from "../wasm/module.js";')).toHaveLength(2);
    expect(webAssemblyLines("const magic = [0x00, 0x61, 0x73, 0x6d];")).toHaveLength(1);
    expect(webAssemblyLines("// one ArrayBuffer, copied with copyWithin")).toEqual([]);
  });
});
