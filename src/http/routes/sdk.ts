import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { appError } from "../../errors.js";
import type { Services } from "../../services.js";
import { sendStatic } from "../respond.js";
import { ANSWERS_LATER, type Route } from "../router.js";

/** The browser build of src/client (`npm run build:sdk` writes it next to the compiled tree). */
const BUNDLE = fileURLToPath(new URL("../../../sdk/recommendations.js", import.meta.url));

/** The stable path a page imports the SDK from: `import { RecommendationClient } from "https://…/sdk/recommendations.js"`. */
export const SDK_PATH = "/sdk/recommendations.js";

/** Any page may import it (a module script from another origin needs CORS); caches may keep it a few minutes. */
const SDK_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["access-control-allow-origin", "*"],
  ["cross-origin-resource-policy", "cross-origin"],
  ["x-content-type-options", "nosniff"],
  ["cache-control", "public, max-age=300"],
];

export function sdkRoutes(_s: Services): Route[] {
  const bundle = readBundle();
  return [
    {
      method: "GET",
      pattern: SDK_PATH,
      body: "none",
      handler: (ctx) => {
        if (!bundle) throw appError("not_found", "sdkBundle");
        sendStatic(ctx, "text/javascript; charset=utf-8", bundle, SDK_HEADERS);
        return ANSWERS_LATER;
      },
    },
  ];
}

/** Read once at start; a tree compiled without `build:sdk` serves a 404 that says how to make it. */
function readBundle(): Buffer | undefined {
  try {
    return readFileSync(BUNDLE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}
