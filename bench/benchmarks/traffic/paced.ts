/**
 * An open-loop paced client of our own for the fixed-rate runs: `connections` keep-alive HTTP/1.1 connections,
 * request i scheduled at start + i/rate and sent on connection i mod connections, so the load is spread evenly
 * in time and over the connections (autocannon's overallRate sends each connection's share of a second back to
 * back at the start of the second, bursts of -c requests). Each request is its own body from `body()` (a user
 * or item drawn uniformly), built when it is due.
 *
 * Latency is taken from the request's scheduled send time, not from when it was written: a request whose
 * connection still waits for its previous answer waits too, and that wait counts (an answer late by a stall
 * delays the ones scheduled behind it, as it would a real client's; timing from the write would hide it). The
 * client's own lateness counts as well: Node's timers fire on whole milliseconds, so a request goes out up to
 * about 1 ms after its slot. `sendLag` reports that lateness and `p99FromSend` the p99 timed from the write, and
 * the same client against a canned endpoint (ceiling.ts) shows what it adds to an answer that takes no work.
 */
import net from "node:net";
import { nextAnswer, requestHead, withBody } from "../../kit/rawHttp.js";
import { cpuShare, type CpuShare } from "../../kit/cpuShare.js";
import type { DriveOptions } from "./drive.js";
import { Latencies } from "../../kit/latencies.js";
import { ownCpuSeconds } from "../../kit/proc.js";

/** `rate`: requests per second over all connections; `durationS`: seconds of scheduled requests (a started run may be stopped earlier or later with `stopAt`). */
type PacedOptions = DriveOptions & { rate: number };

export interface Percentiles {
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface PacedResult extends Percentiles, CpuShare {
  rate: number;
  connections: number;
  /** Seconds from the first scheduled request to the last. */
  durationS: number;
  sent: number;
  ok: number;
  non2xx: number;
  /** Requests that got no answer (connection lost, or none within the drain timeout). */
  errors: number;
  /** 2xx answers per second of the schedule. */
  reqPerS: number;
  /** The p99 timed from the moment each request was written (what the server and the wire took alone). */
  p99FromSend: number;
  /** How late requests left against their slot: p99 and max, ms (timer granularity, busy client, busy connection). */
  sendLagP99: number;
  sendLagMax: number;
  /** CPU seconds per second this process (the client) used. */
  clientCpuShare: number;
}

/** A run in progress: its result once every answer is in, and its end moved (in epoch ms; the schedule stops there). */
interface PacedRun {
  done: Promise<PacedRun & { result: PacedResult }>;
  /** Epoch ms of the first scheduled request. */
  startEpochMs: number;
  stopAt(epochMs: number): void;
  /** Percentiles of the 2xx answers to requests scheduled within [fromEpochMs, toEpochMs). */
  window(fromEpochMs: number, toEpochMs: number): Percentiles;
}

/** Answers still missing this long after the last scheduled request count as errors. */
const DRAIN_MS = 10_000;
/** Connections open and idle before the first slot. */
const OPEN_LEAD_MS = 100;

interface Connection {
  socket: net.Socket;
  /** The request on the wire, -1 when idle. */
  inFlight: number;
  queue: number[];
  buffered: Buffer;
  dead: boolean;
}

function grow(a: Float64Array<ArrayBuffer>, n: number, fill = 0): Float64Array<ArrayBuffer> {
  if (n < a.length) return a;
  const b = new Float64Array(Math.max(n + 1, a.length * 2)).fill(fill);
  b.set(a);
  return b;
}

export async function startPaced(o: PacedOptions): Promise<PacedRun> {
  const url = new URL(o.url);
  const head = requestHead("POST", url, o.headers);
  const request = (): Buffer => withBody(head, o.body());
  const conns = await Promise.all(Array.from({ length: o.connections }, () => open(url)));
  const interval = 1000 / o.rate;
  const t0 = performance.now() + OPEN_LEAD_MS;
  const startEpochMs = performance.timeOrigin + t0;
  let total = Math.round(o.rate * o.durationS);
  // Per request: scheduled slot is t0 + i·interval; the write time; the latency from the slot (NaN: no 2xx answer).
  let sentAt = new Float64Array(total);
  let latency = new Float64Array(total).fill(NaN);
  let next = 0;
  let answered = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const fromSend = new Latencies();
  const lag = new Latencies();
  const cpuBefore = process.cpuUsage();
  let share: () => CpuShare = () => ({ serverCores: NaN, pgCores: NaN, otherCores: NaN });
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let drainTimer: NodeJS.Timeout | undefined;

  const settled = () => {
    if (next === total && answered + errors === total) finish();
  };
  const write = (c: Connection, i: number) => {
    c.inFlight = i;
    const now = performance.now();
    sentAt[i] = now;
    lag.add(now - (t0 + i * interval));
    c.socket.write(request());
  };
  const fail = (c: Connection) => {
    if (c.dead) return;
    c.dead = true;
    errors += (c.inFlight >= 0 ? 1 : 0) + c.queue.length;
    c.inFlight = -1;
    c.queue.length = 0;
    c.socket.destroy();
    settled();
  };
  for (const c of conns) {
    c.socket.on("data", (chunk: Buffer) => {
      c.buffered = c.buffered.length === 0 ? chunk : Buffer.concat([c.buffered, chunk]);
      for (let answer = nextAnswer(c.buffered); answer; answer = nextAnswer(c.buffered)) {
        c.buffered = c.buffered.subarray(answer.end);
        const i = c.inFlight;
        if (i < 0) continue; // nothing asked: cannot happen without pipelining
        const now = performance.now();
        const status = answer.status;
        answered++;
        if (status >= 200 && status < 300) {
          ok++;
          latency[i] = now - (t0 + i * interval);
          fromSend.add(now - sentAt[i]!);
        } else non2xx++;
        c.inFlight = -1;
        const queued = c.queue.shift();
        if (queued !== undefined) write(c, queued);
        settled();
      }
    });
    c.socket.on("error", () => fail(c));
    c.socket.on("close", () => fail(c));
  }

  const dispatch = (i: number) => {
    const c = conns[i % conns.length]!;
    if (c.dead) {
      errors++;
      return;
    }
    if (c.inFlight < 0) write(c, i);
    else c.queue.push(i);
  };
  const tick = () => {
    const now = performance.now();
    while (next < total && t0 + next * interval <= now) dispatch(next++);
    if (next < total) {
      setTimeout(tick, Math.max(0, t0 + next * interval - now));
      return;
    }
    settled();
    drainTimer = setTimeout(() => {
      for (const c of conns) fail(c);
    }, DRAIN_MS);
  };
  setTimeout(() => {
    share = cpuShare(o.ours);
    tick();
  }, OPEN_LEAD_MS);

  const pick = (from: number, to: number): Percentiles => {
    const l = new Latencies();
    const a = Math.max(0, Math.ceil((from - startEpochMs) / interval));
    const b = Math.min(next, Math.ceil((to - startEpochMs) / interval));
    for (let i = a; i < b; i++) if (!Number.isNaN(latency[i]!)) l.add(latency[i]!);
    const [p50, p90, p99, max] = l.percentiles([0.5, 0.9, 0.99, 1]);
    return { requests: l.count, p50: p50!, p90: p90!, p99: p99!, max: max! };
  };

  const run: PacedRun = {
    startEpochMs,
    stopAt(epochMs: number) {
      // Not below what is already sent; growing the schedule grows the arrays.
      const wanted = Math.max(next, Math.round((epochMs - startEpochMs) / interval));
      sentAt = grow(sentAt, wanted);
      latency = grow(latency, wanted, NaN);
      const wasDone = next === total;
      total = wanted;
      if (wasDone && next < total) {
        clearTimeout(drainTimer);
        tick();
      }
    },
    window: pick,
    done: finished.then(() => {
      clearTimeout(drainTimer);
      const cores = share();
      for (const c of conns)
        if (!c.dead) {
          c.dead = true;
          c.socket.destroy();
        }
      const durationS = (total * interval) / 1000;
      const all = pick(-Infinity, Infinity);
      const result: PacedResult = {
        ...all,
        ...cores,
        rate: o.rate,
        connections: o.connections,
        durationS,
        sent: total,
        ok,
        non2xx,
        errors,
        reqPerS: ok / durationS,
        p99FromSend: fromSend.percentiles([0.99])[0]!,
        sendLagP99: lag.percentiles([0.99])[0]!,
        sendLagMax: lag.percentiles([1])[0]!,
        clientCpuShare: ownCpuSeconds(cpuBefore) / Math.max(durationS, 1e-3),
      };
      return Object.assign(run, { result });
    }),
  };
  return run;
}

/** A paced run of `durationS`, start to last answer. */
export async function paced(o: PacedOptions): Promise<PacedResult> {
  const run = await startPaced(o);
  return (await run.done).result;
}

function open(url: URL): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve({ socket, inFlight: -1, queue: [], buffered: Buffer.alloc(0), dead: false });
    });
    socket.once("error", reject);
  });
}
