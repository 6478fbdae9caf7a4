/** What the soak prints: a row per minute as it goes, the floor, and the summary with its verdicts. */
import { int, table } from "../../kit/table.js";
import type { Latencies } from "../../kit/latencies.js";
import type { CpuShare } from "../../kit/cpuShare.js";
import type { LogCounts } from "../../kit/serverLog.js";
import { KINDS, type Kind } from "./mix.js";
import { kindMinute, type KindMinute, type MinuteRow } from "./minutes.js";
import type { RotationOutcome } from "./rotation.js";
import type { soak } from "./soakRun.js";
import type { KindCounts, Meanwhile, Tally } from "./tally.js";
import type { UploadOutcome } from "./upload.js";
import { comparisonWindows, latencyVerdict, memoryVerdict, type MemoryVerdict } from "./verdicts.js";

const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(1) : x.toFixed(0)) : "-");
const mb = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "-");
const cores = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const trio = (k: KindMinute) => `${ms(k.p50)}/${ms(k.p99)}/${ms(k.max)}`;
const statuses = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([s, n]) => `${s === "0" ? "no-answer" : s}:${n}`)
    .join(" ");

function mergedNon2xx(row: MinuteRow): string {
  const all: Record<string, number> = {};
  for (const k of KINDS) for (const [s, n] of Object.entries(row.kinds[k].non2xx)) all[s] = (all[s] ?? 0) + n;
  return statuses(all) || "0";
}

const COLUMNS: [string, number][] = [
  ["min", 3],
  ["RSS MB", 6],
  ["PG MB", 6],
  ["PG priv", 7],
  ["srv/pg/cli/other cores", 22],
  ["sent", 6],
  ["answered", 8],
  ["open", 5],
  ["non-2xx", 10],
  ["recommend p50/p99/max", 21],
  ["ingest-1 p50/p99/max", 20],
  ["ingest-100 p50/p99/max", 22],
  ["items p99", 9],
  ["users p99", 9],
  ["client lag p99/max", 18],
  ["trained", 7],
  ["warn/err", 8],
];

const line = (cells: string[]) => cells.map((c, i) => c.padStart(COLUMNS[i]![1])).join("  ");

export function minuteHeader(): string {
  return [
    "Per minute: memory at the minute's end (PG: sum of Pss; PG priv: its part outside shared memory); latency in ms from each request's due time, over the answers that ended in that minute;",
    "client lag: due time to hand-over in this client (part of every latency; high when the client itself was starved of CPU).",
    line(COLUMNS.map(([h]) => h)),
  ].join("\n");
}

export function minuteLine(r: MinuteRow): string {
  const sum = (f: (k: KindMinute) => number) => KINDS.reduce((a, k) => a + f(r.kinds[k]), 0);
  const cells = [
    String(r.minute),
    mb(r.serverRssMb),
    mb(r.postgresPssMb),
    mb(r.postgresPrivateMb),
    [r.cores.server, r.cores.postgres, r.cores.client, r.cores.other].map(cores).join("/"),
    int(sum((k) => k.sent)),
    int(sum((k) => k.answered)),
    int(r.inFlight),
    mergedNon2xx(r),
    trio(r.kinds.recommend),
    trio(r.kinds["ingest-1"]),
    trio(r.kinds["ingest-100"]),
    ms(r.kinds["items-upsert"].p99),
    ms(r.kinds["users-upsert"].p99),
    `${ms(r.clientLag.p99)}/${ms(r.clientLag.max)}`,
    String(r.trainings),
    `${r.warnings}/${r.errors}`,
  ];
  return line(cells) + (r.notes.length ? `  ${r.notes.join("; ")}` : "");
}

export function floorReport(tally: Tally, lateness: Latencies, rate: number, seconds: number, cpu: CpuShare): string {
  const rows = KINDS.map((k) => {
    const f = kindMinute(tally.whole[k]);
    return [k, int(f.answered), ms(f.p50), ms(f.p99), ms(f.max), statuses(f.non2xx) || "0"];
  });
  const [lp50, lp99, lmax] = lateness.percentiles([0.5, 0.99, 1]);
  return [
    `Client floor: the same mix at ${rate} req/s for ${seconds}s against a bare uWS endpoint that parses the body and answers 202 at once`,
    table(["kind", "answered", "p50 ms", "p99 ms", "max ms", "non-2xx"], rows),
    `pacer lateness (due time to hand-over, part of every latency above): p50 ${ms(lp50!)} ms, p99 ${ms(lp99!)} ms, max ${ms(lmax!)} ms`,
    `cores busy: endpoint ${cores(cpu.serverCores)}, other work on the machine (this client excluded) ${cores(cpu.otherCores)}`,
    "",
  ].join("\n");
}

export type Summary = ReturnType<typeof summarise>;

/**
 * The soak's verdicts and the figures they came from. `sharedBuffers`: PostgreSQL's shared_buffers setting, up to
 * about which its Pss grows as pages are first touched.
 */
export function summarise(
  args: { minutes: number; rate: number },
  orgs: number,
  out: Awaited<ReturnType<typeof soak>>,
  seen: {
    serverLog: LogCounts;
    floor: { p99: Record<Kind, number> } | undefined;
    sharedBuffers: string;
    loadAverage: { start: number; end: number };
  },
) {
  const uploadMinute = typeof out.upload === "object" ? out.upload.meanwhile.endedInMinute : undefined;
  const memoryOf = (mb: (r: MinuteRow) => number) => memoryVerdict(out.rows.map(mb), uploadMinute);
  const p99 = (w: Record<Kind, KindCounts>, k: Kind) => w[k].latency.percentiles([0.99])[0]!;
  const whole = out.tally.whole;
  return {
    ...args,
    ...seen,
    orgs,
    rows: out.rows,
    tally: out.tally,
    windows: comparisonWindows(args.minutes),
    memory: {
      server: memoryOf((r) => r.serverRssMb),
      postgres: memoryOf((r) => r.postgresPssMb),
      postgresPrivate: memoryOf((r) => r.postgresPrivateMb),
    },
    latency: Object.fromEntries(KINDS.map((k) => [k, latencyVerdict(p99(out.tally.early, k), p99(out.tally.late, k), args.minutes)])) as Record<
      Kind,
      ReturnType<typeof latencyVerdict>
    >,
    lateness: out.driven.lateness,
    unanswered: out.driven.unanswered,
    upload: out.upload,
    rotation: out.rotation,
    distinct: out.mix.distinct(),
    eventsSent: whole["ingest-1"].sent + 100 * whole["ingest-100"].sent,
  };
}

const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? "+" : ""}${x.toFixed(1)}` : "-");

function memoryRow(name: string, v: MemoryVerdict): string[] {
  const after = v.after ? `${signed(v.after.mbPer10Min)} (${v.after.from}-${v.fitTo})` : "-";
  return [name, mb(v.firstMb), mb(v.lastMb), signed(v.mbPer10Min), `${v.fitFrom}-${v.fitTo}`, after, v.verdict];
}

function outcome<T extends UploadOutcome | RotationOutcome>(
  o: (T & { meanwhile: Meanwhile }) | string | undefined,
  describe: (x: T) => string,
): string {
  if (o === undefined) return "not run";
  if (typeof o === "string") return `FAILED: ${o}`;
  const m = o.meanwhile;
  return `${o.ok ? "ok" : "FAILED"}: ${describe(o)}\n  the paced traffic meanwhile: ${int(m.answered)} answers, p99 ${ms(m.p99)} ms, max ${ms(m.max)} ms`;
}

export function summaryReport(s: Summary): string {
  const { early, late } = s.windows;
  const perMinute = (k: Kind) => s.rows.map((r) => ms(r.kinds[k].p99)).join(" ");
  const latencyRows = KINDS.map((k) => {
    const v = s.latency[k];
    const w = kindMinute(s.tally.whole[k]);
    return [
      k,
      int(w.sent),
      int(w.answered),
      ms(w.p50),
      ms(w.p99),
      ms(w.max),
      ms(v.earlyP99),
      ms(v.lateP99),
      Number.isFinite(v.ratio) ? v.ratio.toFixed(2) : "-",
      v.verdict,
      s.floor ? ms(s.floor.p99[k]) : "-",
      statuses(w.non2xx) || "0",
    ];
  });
  const strategyRows = [...s.tally.strategies].map(([name, t]) => {
    const [p50, p99] = t.latency.percentiles([0.5, 0.99]);
    return [
      name,
      int(t.latency.count),
      ms(p50!),
      ms(p99!),
      Object.entries(t.modes)
        .map(([m, n]) => `${m} ${n}`)
        .join(", "),
    ];
  });
  const distinctRows = s.distinct.map((d, i) => [`org ${i + 1}`, int(d.users), int(d.items), `${int(d.pairs)} of ${int(d.possiblePairs)}`]);
  const [lp99, lmax] = s.lateness.percentiles([0.99, 1]);
  const meanOther = s.rows.reduce((a, r) => a + r.cores.other, 0) / Math.max(1, s.rows.length);
  const errors = [...s.tally.firstErrors].map(([k, body]) => `  ${k}: ${body}`);
  return [
    "",
    `Soak summary: ${s.minutes} min at ${s.rate} req/s over ${s.orgs} organisations, loopback; load average ${s.loadAverage.start.toFixed(2)} at start, ${s.loadAverage.end.toFixed(2)} at end;`,
    `other work on this 2-core machine (other helpers' tests) held ${meanOther.toFixed(2)} cores on average (per minute: column "other" above)`,
    "",
    "Memory (MB)",
    table(
      ["process", "minute 1", "last 3 min", "slope MB/10 min", "fit over min", "after the upload", "verdict"],
      [
        memoryRow("server RSS (all threads)", s.memory.server),
        memoryRow("PostgreSQL (sum of Pss)", s.memory.postgres),
        memoryRow("PostgreSQL private (Pss - shared)", s.memory.postgresPrivate),
      ],
    ),
    "  verdict GROWING when the slope exceeds both 10 MB and 3% of the mean per 10 minutes;",
    `  PostgreSQL's Pss includes its shared memory (shared_buffers ${s.sharedBuffers}) as pages are first touched, a cache filling;`,
    "  its private part (each backend's own memory) is where a leak would show",
    "",
    `Latency (ms from due time); drift compares the p99 of minutes ${early.from}-${early.to} with that of minutes ${late.from}-${late.to}`,
    table(
      `kind | sent | answered | p50 | p99 | max | p99 ${early.from}-${early.to} | p99 ${late.from}-${late.to} | ratio | verdict | floor p99 | non-2xx`,
      latencyRows,
    ),
    "  verdict DRIFT when the late p99 is over 1.5x the early one and more than 2 ms above it",
    `p99 per minute, recommend:  ${perMinute("recommend")}`,
    `p99 per minute, ingest-1:   ${perMinute("ingest-1")}`,
    `p99 per minute, ingest-100: ${perMinute("ingest-100")}`,
    "",
    "Recommend by strategy",
    table(["strategy", "answered", "p50", "p99", "modes"], strategyRows),
    "",
    `Events sent: ${int(s.eventsSent)}; distinct in them:`,
    table(["organisation", "users", "items", "(user, item) pairs"], distinctRows),
    "",
    `Upload: ${outcome(s.upload, (u: UploadOutcome) => `${int(u.rows)} rows (${(u.bytes / 1e6).toFixed(1)} MB), ${u.status}, accepted ${int(u.accepted)}, rejected ${int(u.rejected)}, ${u.seconds.toFixed(1)} s${u.message ? `, ${u.message}` : ""}`)}`,
    `Key rotation: ${outcome(s.rotation, (r: RotationOutcome) => r.steps.join("; "))}`,
    `Server log: ${s.serverLog.trainings} trainings, ${s.serverLog.warnings} warnings, ${s.serverLog.errors} errors${Object.keys(s.serverLog.messages).length ? ": " + JSON.stringify(s.serverLog.messages) : ""}`,
    `Unanswered at the end: ${s.unanswered}; client pacer lateness p99 ${ms(lp99!)} ms, max ${ms(lmax!)} ms`,
    ...(errors.length ? ["First answer of each non-2xx kind and status:", ...errors] : ["Non-2xx answers: none"]),
    "",
  ].join("\n");
}
