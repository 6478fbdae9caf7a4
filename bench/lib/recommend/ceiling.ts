/** The recommend ceiling: the same load against a bare uWS endpoint answering a canned recommend response. */
import { fileURLToPath } from "node:url";
import { startChild, stopChild } from "../processes.js";
import { drive, type DriveResult } from "./drive.js";

const CANNED_SERVER = fileURLToPath(new URL("./cannedUws.js", import.meta.url));

export interface Ceiling extends DriveResult {
  responseBytes: number;
}

/** Drives the canned endpoint with `body()` exactly as the strategies are driven (same connections, same setup). */
export async function recommendCeiling(cannedResponse: string, body: () => string, connections: number, durationS: number, warmupS: number): Promise<Ceiling> {
  const { child, match } = await startChild(CANNED_SERVER, { ...process.env, CANNED_BODY: cannedResponse }, /listening on (\d+)/);
  try {
    const opts = { url: `http://127.0.0.1:${match[1]}/v1/recommend`, headers: { "content-type": "application/json", "x-api-key": "svc_pk_unused" }, body, connections, ours: { pid: child.proc.pid } };
    await drive({ ...opts, durationS: warmupS });
    return { ...(await drive({ ...opts, durationS })), responseBytes: Buffer.byteLength(cannedResponse) };
  } finally {
    await stopChild(child);
  }
}
