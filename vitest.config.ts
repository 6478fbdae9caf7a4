import { readdirSync, readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit`, the files that start no server and no database (wire, workers, client, pure logic),
 * and `server`, the files that do (they import test/helpers/server.ts or test/helpers/postgres.ts). Sorting by
 * imports keeps the split true as files are added: `npm run test:unit` is the quick gate, and CI runs only
 * `server` against its second PostgreSQL, since nothing of `unit` depends on which database is there.
 */
const SERVER_HELPERS = /from "(?:\.\.?\/)+helpers\/(?:server|postgres)\.js"/;

const testFiles = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/${f.replaceAll("\\", "/")}`)
  .sort();
const startsServer = (file: string) => SERVER_HELPERS.test(readFileSync(file, "utf8"));

export const UNIT_FILES = testFiles.filter((f) => !startsServer(f));
export const SERVER_FILES = testFiles.filter(startsServer);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "unit", include: UNIT_FILES } },
      { extends: true, test: { name: "server", include: SERVER_FILES } },
    ],
  },
});
