/**
 * What came back, by minute and kind. A request counts as sent in the minute it was due and as answered, with
 * its latency from its due time, in the minute its answer ended. The whole run and two comparison windows
 * (early and late minutes) keep their latencies too, so their percentiles are of all their requests, not
 * averages of minutes.
 */
import { Latencies } from "../../kit/latencies.js";
import type { Strategy } from "../../../src/wire/strategies.js";
import { KINDS, type Kind } from "./mix.js";

export interface KindCounts {
  sent: number;
  answered: number;
  /** Answers by HTTP status ("0": no answer: socket error or timeout). */
  statuses: Record<string, number>;
  latency: Latencies;
}

export interface Window {
  from: number;
  to: number;
}

export const emptyKinds = (): Record<Kind, KindCounts> =>
  Object.fromEntries(KINDS.map((k) => [k, { sent: 0, answered: 0, statuses: {}, latency: new Latencies() }])) as Record<Kind, KindCounts>;

/** What the paced traffic saw while an operation ran (answers, p99 and max latency in ms), and the minute it ended in. */
export interface Meanwhile {
  answered: number;
  p99: number;
  max: number;
  endedInMinute: number;
}

export class Tally {
  /** Index m holds minute m + 1; minutes after the last hold answers that came during the drain. */
  readonly minutes: Record<Kind, KindCounts>[] = [];
  readonly whole = emptyKinds();
  readonly early = emptyKinds();
  readonly late = emptyKinds();
  readonly strategies = new Map<Strategy, { latency: Latencies; modes: Record<string, number> }>();
  /** The first answer body of each kind and status that was not a 2xx, to say what went wrong. */
  readonly firstErrors = new Map<string, string>();
  /** Per minute (by due time): the client's own lateness in handing requests over, a part of every latency. */
  readonly lateness: Latencies[] = [];
  private open = 0;
  private readonly watching = new Set<Latencies>();

  constructor(
    private readonly start: number,
    private readonly windows: { early: Window; late: Window },
  ) {}

  private index(at: number): number {
    return Math.max(0, Math.floor((at - this.start) / 60_000));
  }

  private minute(at: number): Record<Kind, KindCounts> {
    const m = this.index(at);
    while (this.minutes.length <= m) this.minutes.push(emptyKinds());
    return this.minutes[m]!;
  }

  sent(kind: Kind, dueAt: number): void {
    this.minute(dueAt)[kind].sent++;
    const m = this.index(dueAt);
    while (this.lateness.length <= m) this.lateness.push(new Latencies());
    this.lateness[m]!.add(performance.now() - dueAt);
    this.whole[kind].sent++;
    this.open++;
  }

  answered(kind: Kind, dueAt: number, status: number, body: string, strategy?: Strategy): void {
    const now = performance.now();
    const ms = now - dueAt;
    const minuteNo = this.index(now) + 1;
    this.open--;
    const targets = [this.minute(now)[kind], this.whole[kind]];
    if (minuteNo >= this.windows.early.from && minuteNo <= this.windows.early.to) targets.push(this.early[kind]);
    if (minuteNo >= this.windows.late.from && minuteNo <= this.windows.late.to) targets.push(this.late[kind]);
    for (const t of targets) {
      t.answered++;
      t.statuses[status] = (t.statuses[status] ?? 0) + 1;
      t.latency.add(ms);
    }
    if (status < 200 || status > 299) {
      const key = `${kind} ${status}`;
      if (!this.firstErrors.has(key)) this.firstErrors.set(key, body.slice(0, 300));
    }
    for (const w of this.watching) w.add(ms);
    if (strategy) this.strategy(strategy, ms, status === 200 ? /"mode":"(\w+)"/.exec(body)?.[1] : `HTTP ${status}`);
  }

  /** Collects the latency of every answer until the returned function is called (what the traffic felt during an operation). */
  watch(): () => Latencies {
    const w = new Latencies();
    this.watching.add(w);
    return () => {
      this.watching.delete(w);
      return w;
    };
  }

  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.open;
  }

  private strategy(s: Strategy, ms: number, mode: string | undefined): void {
    let t = this.strategies.get(s);
    if (!t) this.strategies.set(s, (t = { latency: new Latencies(), modes: {} }));
    t.latency.add(ms);
    const m = mode ?? "unknown";
    t.modes[m] = (t.modes[m] ?? 0) + 1;
  }
}

/** Answers that were not 2xx, as "status:count" pairs ("" when none). */
export function non2xx(c: KindCounts): Record<string, number> {
  return Object.fromEntries(Object.entries(c.statuses).filter(([s]) => !s.startsWith("2")));
}
