/** Sends one fuzz case over a raw TCP socket, byte for byte as planned, and reads what comes back. */
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { FuzzCase } from "./case.js";
import { parseAnswers, type HttpAnswer } from "../kit/rawHttp.js";
import { encodeCase } from "./wire.js";

/**
 * How the exchange ended: `answered` (every answer owed came), `closed` (the server closed without a full
 * answer), `reset`, `timeout` (nothing within the bound: we closed), `client-left` (the case itself left
 * mid-request), `refused` (no server listening).
 */
type Ending = "answered" | "closed" | "reset" | "timeout" | "client-left" | "refused";

export interface Exchange {
  ending: Ending;
  answers: HttpAnswer[];
  /** Bytes back that are not an HTTP response. */
  malformed?: string;
  /** From the last byte sent to the (first) answer, or to the end. */
  ms: number;
  error?: string;
}

export interface SendLimits {
  /** How long a well-formed request may wait for its answer once sent (the hang bound). */
  answerMs: number;
  /** How long a request broken at the HTTP level is given before we close it ourselves. */
  maybeMs: number;
  /** How long a held connection may stay open unanswered before it counts as a hang (uWS's idle timeout is ~10 s). */
  holdMs: number;
}

export function sendCase(port: number, c: FuzzCase, limits: SendLimits): Promise<Exchange> {
  const wire = encodeCase(c);
  const bytes = c.delivery.kind === "pipelined" ? Buffer.concat([wire, wire]) : wire;
  const owed = c.delivery.kind === "pipelined" ? 2 : 1;
  const bodyless = Array<boolean>(owed).fill(c.request.method === "HEAD");
  const waitMs = c.expect === "answer" ? limits.answerMs : c.delivery.kind === "held" ? limits.holdMs : limits.maybeMs;

  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", noDelay: true });
    let received = Buffer.alloc(0);
    let sentAt = performance.now();
    let answeredAt: number | undefined;
    let error: string | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;

    const finish = (ending: Ending) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseAnswers(received, bodyless, true);
      const end = ending === "closed" && parsed.answers.length > 0 ? "answered" : ending;
      resolve({ ending: end, answers: parsed.answers, malformed: parsed.malformed, ms: (answeredAt ?? performance.now()) - sentAt, error });
    };
    const armTimer = () => {
      clearTimeout(timer);
      sentAt = performance.now();
      timer = setTimeout(() => finish("timeout"), waitMs);
    };

    socket.on("data", (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const parsed = parseAnswers(received, bodyless, false);
      if (parsed.answers.length > 0) answeredAt ??= performance.now();
      if (parsed.answers.length >= owed || parsed.malformed) finish("answered");
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
      if (err.code === "ECONNREFUSED") finish("refused");
      else if (err.code === "ECONNRESET") finish("reset");
      // EPIPE and the like: the server stopped reading (it may have answered early); 'close' follows.
    });
    socket.on("close", () => finish("closed"));
    // A socket whose writes never drain (the server paused it and never answered) still ends.
    const overall = setTimeout(() => finish("timeout"), waitMs + 60_000);
    socket.on("close", () => clearTimeout(overall));

    socket.on("connect", () => {
      deliver(socket, bytes, c).then(
        (left) => (left ? finish("client-left") : armTimer()),
        () => armTimer(),
      );
    });
  });
}

/** Writes the bytes as the case's delivery says; resolves true if the client left on purpose. */
async function deliver(socket: net.Socket, bytes: Buffer, c: FuzzCase): Promise<boolean> {
  const d = c.delivery;
  switch (d.kind) {
    case "whole":
    case "held":
    case "pipelined":
      await write(socket, bytes);
      return false;
    case "segments": {
      let at = 0;
      for (const cut of [...d.cuts, bytes.length]) {
        if (cut <= at) continue;
        await write(socket, bytes.subarray(at, Math.min(cut, bytes.length)));
        at = cut;
        await sleep(3);
      }
      return false;
    }
    case "abort":
      await write(socket, bytes.subarray(0, d.after));
      await sleep(5);
      return true;
    case "slow": {
      let at = d.bodyOnly ? bytes.indexOf("\r\n\r\n") + 4 : 0;
      await write(socket, bytes.subarray(0, at));
      const until = performance.now() + d.dribbleMs;
      while (performance.now() < until && at < bytes.length - 1 && !socket.destroyed) {
        const n = Math.min(d.bytesPerTick, bytes.length - 1 - at);
        await write(socket, bytes.subarray(at, at + n));
        at += n;
        await sleep(d.tickMs);
      }
      if (d.then === "abandon") return true;
      await write(socket, bytes.subarray(at));
      return false;
    }
  }
}

function write(socket: net.Socket, b: Buffer): Promise<void> {
  if (socket.destroyed || b.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => socket.write(b, (err) => (err ? reject(err) : resolve())));
}
