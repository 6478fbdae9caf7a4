/** The bare uWS endpoint (uwsCeiling.ts) as a child process: the ceilings of bench:ingest and bench:recommend, the soak's floor. */
import { fileURLToPath } from "node:url";
import { startChild, type Child } from "../../kit/processes.js";

const UWS_CEILING = fileURLToPath(new URL("./uwsCeiling.js", import.meta.url));

/** The bare uWS endpoint; `canned`: the status and body it answers with, when not ingest's 202. */
export async function startUwsCeiling(canned?: { status: string; body: string }): Promise<{ child: Child; port: string }> {
  const env = canned ? { ...process.env, CEILING_STATUS: canned.status, CEILING_BODY: canned.body } : process.env;
  const { child, match } = await startChild(UWS_CEILING, env, /listening on (\d+)/);
  return { child, port: match[1] };
}
