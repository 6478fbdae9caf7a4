/** The recommend ceiling: the same load against a bare uWS endpoint answering a canned recommend response. */
import { stopChild } from "../../kit/processes.js";
import { startUwsCeiling } from "../traffic/uwsCeilingProcess.js";
import { drive } from "../traffic/drive.js";
import { paced, type PacedResult } from "../traffic/paced.js";

export type Ceiling = Awaited<ReturnType<typeof recommendCeiling>>;

/**
 * Drives the canned endpoint with `body()` exactly as the strategies are driven (same connections, same setup),
 * then, when asked, at the fixed rate of the strategies' fixed-rate runs with each of their connection counts:
 * what the client and the wire add to an answer that takes no work.
 */
export async function recommendCeiling(
  cannedResponse: string,
  body: () => string,
  connections: number,
  durationS: number,
  warmupS: number,
  fixed?: { rate: number; connections: number[]; durationS: number; runs: number },
) {
  const { child, port } = await startUwsCeiling({ status: "200 OK", body: cannedResponse });
  try {
    const opts = {
      url: `http://127.0.0.1:${port}/v1/recommend`,
      headers: { "content-type": "application/json", "x-api-key": "svc_pk_unused" },
      body,
      connections,
      ours: { pid: child.proc.pid },
    };
    await drive({ ...opts, durationS: warmupS });
    const load = await drive({ ...opts, durationS });
    const fixedRate: Array<{ connections: number; rate: number; load: PacedResult }> = [];
    if (fixed) {
      for (const c of fixed.connections) {
        for (let run = 0; run < fixed.runs; run++) {
          fixedRate.push({
            connections: c,
            rate: fixed.rate,
            load: await paced({ ...opts, connections: c, rate: fixed.rate, durationS: fixed.durationS }),
          });
        }
      }
    }
    return { ...load, responseBytes: Buffer.byteLength(cannedResponse), fixedRate };
  } finally {
    await stopChild(child);
  }
}
