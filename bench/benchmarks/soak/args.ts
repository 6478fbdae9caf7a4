/** The soak's flags (documented at the top of bench/benchmarks/soak.ts), checked and bounded. */
import { parseArgs } from "node:util";

export interface SoakArgs {
  minutes: number;
  /** Requests per second, all kinds together. */
  rate: number;
  /** Keep the embedded database in this folder (created if missing). */
  dataDir: string | undefined;
  /** Seconds of the same traffic against a bare endpoint first: the client's own floor (0: skip). */
  floorSeconds: number;
  orgs: number;
  uploadRows: number;
}

function bounded(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max} (got ${raw})`);
  return n;
}

export function parseSoakArgs(argv: string[]): SoakArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      minutes: { type: "string" },
      rate: { type: "string" },
      "data-dir": { type: "string" },
      "floor-seconds": { type: "string" },
      orgs: { type: "string" },
      "upload-rows": { type: "string" },
    },
    strict: true,
  });
  return {
    minutes: bounded("minutes", values.minutes, 30, 1, 24 * 60),
    rate: bounded("rate", values.rate, 300, 1, 20_000),
    dataDir: values["data-dir"],
    floorSeconds: bounded("floor-seconds", values["floor-seconds"], 30, 0, 600),
    orgs: bounded("orgs", values.orgs, 3, 1, 20),
    uploadRows: bounded("upload-rows", values["upload-rows"], 50_000, 0, 10_000_000),
  };
}
