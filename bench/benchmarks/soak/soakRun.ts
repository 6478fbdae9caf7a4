/**
 * The soak itself: the mix at a fixed rate for the whole run, a row printed at each minute's end, the upload
 * a quarter of the way in and the key rotation halfway (both on their own, beside the paced traffic).
 */
import type { Child } from "../../kit/processes.js";
import { log } from "../../kit/settings.js";
import { Mix } from "./mix.js";
import { minuteSampler, type MinuteRow } from "./minutes.js";
import type { SoakOrg } from "./orgs.js";
import { rotateKeys } from "./rotation.js";
import { emptyKinds, Tally, type Meanwhile } from "./tally.js";
import { drive } from "./traffic.js";
import { catalogCsv, uploadItems } from "./upload.js";
import { comparisonWindows } from "./verdicts.js";

interface SoakInput {
  url: string;
  server: Child;
  dataDir: string | undefined;
  orgs: SoakOrg[];
  minutes: number;
  rate: number;
  uploadRows: number;
  /** Hears each minute's row at the minute's end. */
  onMinute: (row: MinuteRow) => void;
}

const failed = (e: unknown) => (e as Error).message ?? String(e);

/**
 * Runs `op` after `delayMs`; its outcome (or failure) is noted in the minute it finished, with the latency the
 * paced traffic had meanwhile.
 */
function later<T extends { ok: boolean }>(
  start: number,
  delayMs: number,
  tally: Tally,
  note: (s: string) => void,
  label: string,
  op: () => Promise<T>,
): Promise<(T & { meanwhile: Meanwhile }) | string> {
  return new Promise((resolve) => {
    setTimeout(() => {
      note(`${label} started`);
      const stop = tally.watch();
      op().then(
        (r) => {
          const seen = stop();
          const [p99, max] = seen.percentiles([0.99, 1]);
          const meanwhile = { answered: seen.count, p99: p99!, max: max!, endedInMinute: Math.floor((performance.now() - start) / 60_000) + 1 };
          note(`${label} ${r.ok ? "ok" : "FAILED"} (traffic meanwhile: p99 ${meanwhile.p99.toFixed(0)} ms, max ${meanwhile.max.toFixed(0)} ms)`);
          resolve({ ...r, meanwhile });
        },
        (e) => {
          stop();
          note(`${label} FAILED`);
          resolve(failed(e));
        },
      );
    }, delayMs);
  });
}

export async function soak(input: SoakInput) {
  const { minutes, rate } = input;
  const durationMs = minutes * 60_000;
  const mix = new Mix(
    input.orgs.map((o) => o.spec),
    42,
  );
  const start = performance.now();
  const tally = new Tally(start, comparisonWindows(minutes));
  const sample = minuteSampler(input.server, input.dataDir);
  const rows: MinuteRow[] = [];
  let notes: string[] = [];
  const note = (s: string) => notes.push(s);

  const minuteTimers = Array.from({ length: minutes }, (_, i) =>
    setTimeout(
      () => {
        const row = sample(i + 1, tally.minutes[i] ?? emptyKinds(), tally.lateness[i], tally.inFlight, notes);
        notes = [];
        rows.push(row);
        input.onMinute(row);
      },
      start + (i + 1) * 60_000 - performance.now(),
    ),
  );

  const uploadOrg = input.orgs[0]!;
  const rotationOrg = input.orgs[1 % input.orgs.length]!;
  // Built now, so that making it does not stall the client when it is sent.
  const csv = catalogCsv(uploadOrg.spec, input.uploadRows);
  const upload =
    input.uploadRows > 0
      ? later(start, durationMs * 0.25, tally, note, `upload of ${input.uploadRows} rows`, () =>
          uploadItems(input.url, uploadOrg.token, csv, input.uploadRows),
        )
      : Promise.resolve(undefined);
  const rotation = later(start, durationMs * 0.5, tally, note, "key rotation", () => rotateKeys(input.url, rotationOrg));

  const driven = await drive(new URL(input.url), input.orgs, mix, rate, durationMs, tally);
  // The last minute's row is due when the pacer stops; the drain may have outlasted it already.
  await new Promise<void>((resolve) => {
    const check = () => (rows.length === minutes ? resolve() : setTimeout(check, 100));
    check();
  });
  minuteTimers.forEach(clearTimeout);
  log("traffic stopped; waiting for the upload and the rotation to finish if they have not");
  return { rows, tally, mix, driven, upload: await upload, rotation: await rotation };
}
