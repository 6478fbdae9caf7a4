import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The files the threads start by path: the only way src/ may name workers/. */
const THREAD_ENTRIES = ["workers/writer/writeBatch.ts", "workers/writer/writeServed.ts", "workers/recommender/recommenderThread.ts"];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every `import … from`, `export … from` and `import(…)` of a file, type-only ones included, as repo paths or package names. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)|^import\s+"([^"]+)"/g)].map(
    (m) => m[1] ?? m[2] ?? m[3]!,
  );
  return specs.map((s) => (s.startsWith(".") ? normalize(join(dirname(file), s)).replace(/\.js$/, ".ts") : s));
}

/** The imports a file keeps at run time: type-only ones (`import type`, `export type`) are erased by the compiler. */
function runtimeImportsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8").replace(/(?:^|\n)\s*(?:import|export)\s+type\b[^;]*;/g, "");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g)]
    .map((m) => m[1] ?? m[2]!)
    .map((s) => (s.startsWith(".") ? normalize(join(dirname(file), s)).replace(/\.js$/, ".ts") : s));
}

/** Paths a file hands to `new URL(…, import.meta.url)`, as repo paths (the compiled tree mirrors this one). */
function urlPathsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/new URL\(\s*"([^"]+)"\s*,\s*import\.meta\.url/g)].map((m) =>
    normalize(join(dirname(file), m[1]!)).replace(/\.js$/, ".ts"),
  );
}

/** Import cycles of a graph, each as the files around it (Tarjan's strongly connected components). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/**
 * The rooms of workers/ that the recommender and training threads run, lowest first: each may import the rooms
 * before it, none after. model/: what training writes and serving reads (the Model and its parts, their bytes,
 * the math and the best-k selection both sides run); vectors/: search over a model's vectors; index/: an
 * organisation's live state, which a model is swapped into; training/: reads an index, writes a model;
 * strategies/: ranking, reading all of them; recommender/: the thread around them. writer/ shares none of them.
 */
export const ROOMS = ["model", "vectors", "index", "training", "strategies", "recommender"];

/** Imports from a room of `rooms` to one after it, or between writer/ and any of them. */
export function upwardImports(graph: ReadonlyMap<string, readonly string[]>, rooms: readonly string[]): string[] {
  const roomOf = (f: string): string | undefined => /^workers\/([^/]+)\//.exec(f)?.[1];
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const from = roomOf(file);
    if (from === undefined) continue;
    for (const s of imports) {
      const to = roomOf(s);
      if (to === undefined || to === from) continue;
      const up = rooms.includes(from) && rooms.includes(to) && rooms.indexOf(to) > rooms.indexOf(from);
      if (up || from === "writer" || to === "writer") wrong.push(`${file} → ${s}`);
    }
  }
  return wrong;
}

const files = [...sourceFiles("src"), ...sourceFiles("workers")];
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const local = (spec: string): boolean => spec.startsWith("src/") || spec.startsWith("workers/");
const benchFiles = sourceFiles("bench");
const benchGraph = new Map(benchFiles.map((f) => [f, importsOf(f)]));

describe("the import graph", () => {
  it("finds the files it checks (src/ and workers/, both wings)", () => {
    expect(files.filter((f) => f.startsWith("src/wire/")).length).toBeGreaterThan(5);
    expect(files.filter((f) => f.startsWith("workers/")).length).toBeGreaterThan(20);
    expect(graph.get("workers/recommender/recommenderThread.ts")).toContain("src/wire/shardMessages.ts");
  });

  it("lets workers/ import nothing of src/ but src/wire/", () => {
    const leaks = files
      .filter((f) => f.startsWith("workers/"))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((s) => s.startsWith("src/") && !s.startsWith("src/wire/"))
          .map((s) => `${f} → ${s}`),
      );
    expect(leaks).toEqual([]);
  });

  it("keeps src/wire/ to itself: no import of the rest of src/, of workers/, or of zod", () => {
    const leaks = files
      .filter((f) => f.startsWith("src/wire/"))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((s) => (local(s) && !s.startsWith("src/wire/")) || s === "zod")
          .map((s) => `${f} → ${s}`),
      );
    expect(leaks).toEqual([]);
  });

  it("loads no zod on the writer, recommender and training threads", () => {
    const threadFiles = files.filter((f) => f.startsWith("workers/") || f.startsWith("src/wire/"));
    expect(threadFiles.filter((f) => graph.get(f)!.some((s) => s === "zod" || s.startsWith("zod/")))).toEqual([]);
  });

  it("lets src/ name workers/ only by the thread entry paths it starts", () => {
    const front = files.filter((f) => f.startsWith("src/"));
    const imports = front.flatMap((f) =>
      graph
        .get(f)!
        .filter((s) => s.startsWith("workers/"))
        .map((s) => `${f} → ${s}`),
    );
    expect(imports).toEqual([]);
    const started = front.flatMap((f) => urlPathsOf(f).filter((p) => p.startsWith("workers/")));
    expect(started.sort()).toEqual([...THREAD_ENTRIES].sort());
  });

  it("keeps the browser SDK free of Node: src/client/ runs only src/client/ and src/wire/ code, its Node entry aside", () => {
    const browserPath = files.filter((f) => f.startsWith("src/client/") && f !== "src/client/node.ts");
    expect(browserPath).toContain("src/client/client.ts");
    const leaks = browserPath.flatMap((f) =>
      runtimeImportsOf(f)
        .filter((s) => !s.startsWith("src/client/") && !s.startsWith("src/wire/"))
        .map((s) => `${f} → ${s}`),
    );
    expect(leaks).toEqual([]);
    expect(runtimeImportsOf("src/client/node.ts")).toContain("node:crypto");
  });

  it("lets each room of workers/ import only the rooms below it (model ← vectors ← index ← training ← strategies ← recommender)", () => {
    const rooms = new Set(files.filter((f) => f.startsWith("workers/")).map((f) => f.split("/")[1]!));
    expect([...rooms].sort()).toEqual([...ROOMS, "writer"].sort());
    expect(upwardImports(graph, ROOMS)).toEqual([]);
  });

  it("finds an upward import when there is one, and one between writer/ and another room", () => {
    const g = new Map([
      ["workers/index/a.ts", ["workers/model/m.ts", "workers/training/t.ts"]],
      ["workers/training/t.ts", ["workers/index/a.ts", "workers/vectors/v.ts", "src/wire/w.ts"]],
      ["workers/writer/w.ts", ["workers/index/a.ts"]],
    ]);
    expect(upwardImports(g, ROOMS)).toEqual(["workers/index/a.ts → workers/training/t.ts", "workers/writer/w.ts → workers/index/a.ts"]);
  });

  it("has no import cycle, counting type-only imports", () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it("keeps the engine free of bench/: nothing in src/ or workers/ imports or starts a file of it", () => {
    const leaks = files.flatMap((f) => [...graph.get(f)!, ...urlPathsOf(f)].filter((s) => s.startsWith("bench/")).map((s) => `${f} → ${s}`));
    expect(leaks).toEqual([]);
  });

  it("has no import cycle in bench/ (benchmarks, fuzzer, evaluation and their kit), counting type-only imports", () => {
    expect(benchGraph.get("bench/benchmarks/ingest.ts")).toContain("bench/kit/processes.ts");
    expect(cyclesOf(benchGraph)).toEqual([]);
  });

  it("keeps bench/'s purposes apart: the kit imports none of them, the fuzzer and the evaluation import only the kit, the benchmarks read data files through the evaluation's readers alone", () => {
    const purpose = (f: string) => f.split("/")[1]!;
    const allowed: Record<string, (to: string) => boolean> = {
      kit: (to) => purpose(to) === "kit",
      fuzz: (to) => ["kit", "fuzz"].includes(purpose(to)),
      evaluation: (to) => ["kit", "evaluation"].includes(purpose(to)),
      benchmarks: (to) => ["kit", "benchmarks"].includes(purpose(to)) || /^bench\/evaluation\/(csv|lightGcnSplit|split)\.ts$/.test(to),
    };
    expect(Object.keys(allowed).sort()).toEqual([...new Set(benchFiles.map(purpose))].sort());
    const crossings = benchFiles.flatMap((f) =>
      benchGraph
        .get(f)!
        .filter((to) => to.startsWith("bench/") && !allowed[purpose(f)]!(to))
        .map((to) => `${f} → ${to}`),
    );
    expect(crossings).toEqual([]);
  });

  it("finds a cycle when there is one (a → b → c → a, and a file importing itself)", () => {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []],
      ["e", ["e"]],
    ]);
    expect(cyclesOf(g)).toEqual([["a", "b", "c"], ["e"]]);
  });
});
