import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { log } from "./settings.js";

const RESULTS_DIR = fileURLToPath(new URL("../../../bench/results/", import.meta.url));

/** Writes a benchmark's figures to bench/results/<name>-<date>.json (the folder is not committed). */
export function writeFigures(name: string, date: string, figures: unknown): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${name}-${date.replace(/[:.]/g, "-")}.json`;
  writeFileSync(file, JSON.stringify(figures, null, 2) + "\n");
  log(`figures written to ${file}`);
}
