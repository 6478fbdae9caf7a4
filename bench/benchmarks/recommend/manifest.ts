/**
 * What a kept data dir holds: the organisation the benchmark loaded there, its keys and the figures of that
 * load. Written only once the load has finished, so a dir without it (or with another spec) is never reused
 * by mistake; the keys are the benchmark's own throwaway organisation's.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SyntheticSpec } from "../../kit/synthetic.js";
import type { Sent } from "../../kit/api.js";

const FILE = "bench-recommend.json";

export interface Manifest {
  spec: SyntheticSpec;
  orgId: string;
  orgSeq: number;
  pk: string;
  sk: string;
  loadedAt: string;
  load: { items: Sent; users: Sent; events: Sent };
}

export function readManifest(dataDir: string): Manifest | undefined {
  const file = path.join(dataDir, FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Manifest) : undefined;
}

export function writeManifest(dataDir: string, m: Manifest): void {
  writeFileSync(path.join(dataDir, FILE), JSON.stringify(m, null, 2) + "\n", { mode: 0o600 });
}

/** Same organisation shape: sizes, topics, days and seed (event times are relative to the load, not compared). */
export function sameSpec(a: SyntheticSpec, b: SyntheticSpec): boolean {
  return a.items === b.items && a.users === b.users && a.events === b.events && a.topics === b.topics && a.days === b.days && a.seed === b.seed;
}

/** True when the folder has nothing in it yet (a fresh place to load into). */
export function isEmptyDir(dataDir: string): boolean {
  return !existsSync(dataDir) || readdirSync(dataDir).length === 0;
}
