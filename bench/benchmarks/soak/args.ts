/** The soak's flags (documented at the top of bench/benchmarks/soak.ts), checked and bounded. */
import { readFlags } from "../../kit/flags.js";

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

export function parseSoakArgs(argv: string[]): SoakArgs {
  const flags = readFlags({ minutes: {}, rate: {}, "data-dir": {}, "floor-seconds": {}, orgs: {}, "upload-rows": {} }, argv);
  const whole = (min: number, max: number) => ({ min, max, integer: true });
  return {
    minutes: flags.number("minutes", 30, whole(1, 24 * 60)),
    rate: flags.number("rate", 300, whole(1, 20_000)),
    dataDir: flags.text("data-dir"),
    floorSeconds: flags.number("floor-seconds", 30, whole(0, 600)),
    orgs: flags.number("orgs", 3, whole(1, 20)),
    uploadRows: flags.number("upload-rows", 50_000, whole(0, 10_000_000)),
  };
}
