import { readdirSync, readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

/**
 * Three projects: `unit`, the files that start no server and no database (wire, workers, client, pure logic: the
 * quick gate, `npm run test:unit`); `quality`, the recommendation-quality tests on the real datasets beside the
 * repository (`../shared/datasets`; minutes of training and ranking, no server); and `server`, the files that start
 * a server or a database (they import test/helpers/server.ts or test/helpers/postgres.ts). Sorting by imports keeps
 * the split true as files are added. CI runs only `server` against its second PostgreSQL, since nothing else
 * depends on which database is there.
 */
const SERVER_HELPERS = /from "(?:\.\.?\/)+helpers\/(?:server|postgres)\.js"/;

const testFiles = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/${f.replaceAll("\\", "/")}`)
  .sort();
const startsServer = (file: string) => SERVER_HELPERS.test(readFileSync(file, "utf8"));

export const SERVER_FILES = testFiles.filter(startsServer);
export const QUALITY_FILES = testFiles.filter((f) => f.startsWith("test/quality/") && !startsServer(f));
export const UNIT_FILES = testFiles.filter((f) => !SERVER_FILES.includes(f) && !QUALITY_FILES.includes(f));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A page or a server under a busy machine (browser tests run two at a time) may take seconds to show what a
    // poll waits for; the 1 s default failed such tests when the machine was loaded, not when the code was wrong.
    expect: { poll: { timeout: 15_000 } },
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "unit", include: UNIT_FILES } },
      { extends: true, test: { name: "quality", include: QUALITY_FILES } },
      { extends: true, test: { name: "server", include: SERVER_FILES } },
    ],
  },
});
