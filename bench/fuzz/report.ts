/** Counts by route and status and by mutation kind, the failures as replayable JSON lines, and the verdict. */
import { table } from "../kit/table.js";
import type { FuzzCase } from "./case.js";
import { outcomeLabel, type Finding, type Verdict } from "./checks.js";
import type { Exchange } from "./sender.js";

const KEPT_FAILURES = 50;
const BODY_PREFIX = 300;

type Counts = Map<string, Map<string, number>>;

function bump(m: Counts, row: string, col: string): void {
  const r = m.get(row) ?? new Map<string, number>();
  r.set(col, (r.get(col) ?? 0) + 1);
  m.set(row, r);
}

/** One line a person (or `--case`) can replay: the case's number and seed, and the request as sent. */
export function replayLine(seed: number, c: FuzzCase, x: Exchange | undefined, finding: Finding | undefined): string {
  const body = c.request.body;
  const prefix = body.subarray(0, BODY_PREFIX);
  const text = prefix.toString("utf8");
  const bodyField = Buffer.from(text, "utf8").equals(prefix) ? { body_prefix: text } : { body_prefix_base64: prefix.toString("base64") };
  return JSON.stringify({
    seed,
    case: c.index,
    route: c.route,
    mutation: c.mutation,
    finding: finding ? `${finding.check}: ${finding.detail}` : undefined,
    outcome: x ? outcomeLabel(x) : undefined,
    ms: x ? Math.round(x.ms) : undefined,
    answer_prefix: x?.answers[0]?.body.subarray(0, 200).toString("utf8"),
    method: c.request.method,
    target: c.request.target.length > 300 ? `${c.request.target.slice(0, 300)}… (${c.request.target.length} chars)` : c.request.target,
    version: c.request.version,
    headers: c.request.headers.map(([k, v]) => [
      k,
      typeof v === "string" ? (v.length > 300 ? `${v.slice(0, 300)}… (${v.length} chars)` : v) : { base64: v.subarray(0, 300).toString("base64") },
    ]),
    framing: c.framing.kind === "chunked" ? { ...c.framing, sizes: c.framing.sizes.slice(0, 20) } : c.framing,
    delivery: c.delivery,
    body_length: body.length,
    ...bodyField,
  });
}

export class Tally {
  readonly byRoute: Counts = new Map();
  readonly byMutation: Counts = new Map();
  readonly failures: Array<{ finding: Finding; line: string }> = [];
  readonly shedding = new Map<string, number>();
  failureCount = 0;
  cases = 0;
  private readonly slowest = new Map<string, number>();

  constructor(private readonly seed: number) {}

  add(c: FuzzCase, x: Exchange, v: Verdict): void {
    this.cases++;
    const label = outcomeLabel(x);
    bump(this.byRoute, c.route, label);
    for (const kind of c.mutation.split("+")) bump(this.byMutation, kind.split(".").slice(0, 2).join("."), bucket(label));
    if (x.answers.length > 0) this.slowest.set(c.route, Math.max(this.slowest.get(c.route) ?? 0, x.ms));
    if (v.shedding) this.shedding.set(v.shedding, (this.shedding.get(v.shedding) ?? 0) + 1);
    for (const f of v.findings) this.fail(f, replayLine(this.seed, c, x, f));
  }

  fail(finding: Finding, line: string): void {
    this.failureCount++;
    if (this.failures.length < KEPT_FAILURES) this.failures.push({ finding, line });
  }

  routeTable(): string {
    const cols = columns(this.byRoute);
    const rows = [...this.byRoute.keys()].sort().map((route) => {
      const r = this.byRoute.get(route)!;
      const total = [...r.values()].reduce((s, n) => s + n, 0);
      return [route, String(total), ...cols.map((c) => (r.get(c) ? String(r.get(c)) : "")), `${Math.round(this.slowest.get(route) ?? 0)}`];
    });
    return table(["route", "cases", ...cols, "slowest ms"], rows);
  }

  mutationTable(): string {
    const cols = ["2xx", "4xx", "5xx", "uws", "closed", "reset", "timeout", "client-left", "other"];
    const rows = [...this.byMutation.keys()].sort().map((kind) => {
      const r = this.byMutation.get(kind)!;
      const total = [...r.values()].reduce((s, n) => s + n, 0);
      return [kind, String(total), ...cols.map((c) => (r.get(c) ? String(r.get(c)) : ""))];
    });
    return table(["mutation kind", "cases", ...cols], rows);
  }
}

/** Status columns in order: numbers first, then how exchanges ended without an answer. */
function columns(m: Counts): string[] {
  const all = new Set<string>();
  for (const r of m.values()) for (const k of r.keys()) all.add(k);
  return [...all].sort((a, b) => {
    const na = Number(a),
      nb = Number(b);
    if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
    if (!Number.isNaN(na)) return -1;
    if (!Number.isNaN(nb)) return 1;
    return a.localeCompare(b);
  });
}

function bucket(label: string): string {
  if (/^2\d\d$/.test(label)) return "2xx";
  if (/^4\d\d$/.test(label)) return "4xx";
  if (/^5\d\d$/.test(label)) return "5xx";
  if (label.startsWith("uws-")) return "uws";
  if (["closed", "reset", "timeout", "client-left"].includes(label)) return label;
  return "other";
}
