/**
 * Bundles the browser SDK (src/client) into dist/sdk/recommendations.js, unless the bundle is newer than every
 * file it was built from (listed by esbuild's metafile), this script and esbuild itself: `npm start` and the
 * other scripts build first, and an unchanged client need not be bundled again.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const OUT = "dist/sdk/recommendations.js";
const META = "dist/sdk/.inputs.json";
const TOOLS = [new URL(import.meta.url).pathname, "node_modules/esbuild/package.json"];

function upToDate() {
  if (!existsSync(OUT) || !existsSync(META)) return false;
  const built = statSync(OUT).mtimeMs;
  const inputs = [...Object.keys(JSON.parse(readFileSync(META, "utf8")).inputs), ...TOOLS];
  return inputs.every((f) => existsSync(f) && statSync(f).mtimeMs <= built);
}

if (upToDate() && !process.argv.includes("--force")) {
  console.log(`${OUT} is up to date`);
} else {
  const result = await build({
    entryPoints: ["src/client/index.ts"],
    bundle: true,
    format: "esm",
    minify: true,
    target: "es2020",
    legalComments: "none",
    outfile: OUT,
    metafile: true,
    logLevel: "warning",
  });
  writeFileSync(META, JSON.stringify({ inputs: result.metafile.inputs }));
  console.log(`${OUT} bundled`);
}
