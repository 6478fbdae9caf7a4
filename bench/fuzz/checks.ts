/**
 * What every exchange must satisfy: no 5xx (a 503 counts only as load shedding the service names as such),
 * the contract's envelope on every JSON answer, an answer within the bound for every well-formed request.
 */
import { ERROR_STATUS } from "../../src/errors.js";
import type { FuzzCase } from "./case.js";
import type { HttpAnswer } from "../kit/rawHttp.js";
import type { Exchange } from "./sender.js";

/** 503s that say they shed load (a queue or a lookup limit full), rather than that something broke. */
const LOAD_SHEDDING = /saturated|too many unknown keys/;

export interface Finding {
  check: "5xx" | "envelope" | "hang" | "dropped" | "not-from-service" | "bad-response" | "server-down";
  detail: string;
}

export interface Verdict {
  findings: Finding[];
  /** A 503 the service explains as load shedding: reported apart, not a failure. */
  shedding?: string;
}

export function header(a: HttpAnswer, name: string): string | undefined {
  return a.headers.get(name)?.[0];
}

/** Our service writes a content type on every answer (or the CORS headers on a preflight's 204); uWS's own do not. */
function fromService(a: HttpAnswer): boolean {
  return header(a, "content-type") !== undefined || (a.status === 204 && header(a, "access-control-allow-origin") !== undefined);
}

/** Answers that are not the envelope by design: the dashboard's files, the metrics page, the API description and its page, a preflight, a HEAD. */
function exempt(c: FuzzCase, a: HttpAnswer): boolean {
  if (c.request.method === "HEAD" || a.status === 204) return true;
  const type = header(a, "content-type") ?? "";
  // A query string does not change what a path serves (the fuzzer adds garbage ones to every target).
  if (a.status === 200 && c.request.target.split("?")[0] === "/openapi.json") return true;
  if (a.status === 200 && !type.startsWith("application/json")) return /^\/(dashboard|metrics|docs|sdk)/.test(c.request.target);
  return false;
}

/** What is wrong with the answer's envelope, if anything. */
export function envelopeProblem(a: HttpAnswer): string | undefined {
  const type = header(a, "content-type") ?? "";
  if (!type.startsWith("application/json")) return `content-type is ${JSON.stringify(type)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.body.toString("utf8"));
  } catch {
    return `body is not JSON: ${JSON.stringify(a.body.subarray(0, 80).toString("utf8"))}`;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return "body is not a JSON object";
  const body = parsed as Record<string, unknown>;
  if (typeof body.message !== "string") return "message is not a string";
  if (a.status < 400) {
    if (body.success !== true) return `success is ${JSON.stringify(body.success)} on a ${a.status}`;
    if (!("data" in body)) return "a success without data";
    return undefined;
  }
  if (body.success !== false) return `success is ${JSON.stringify(body.success)} on a ${a.status}`;
  const extra = Object.keys(body).filter((k) => !["success", "message", "error"].includes(k));
  if (extra.length > 0) return `error envelope has extra keys ${extra.join(", ")}`;
  const error = String(body.error); // as `in` and indexing would take it
  if (!(error in ERROR_STATUS)) return `error code ${JSON.stringify(body.error)} is not in CONTRACT section 6`;
  if ((ERROR_STATUS as Readonly<Record<string, number>>)[error] !== a.status) return `error ${error} answered with status ${a.status}`;
  if (a.status === 429 && header(a, "retry-after") === undefined) return "a 429 without Retry-After";
  if (a.status === 405 && header(a, "allow") === undefined) return "a 405 without Allow";
  return undefined;
}

function checkAnswer(c: FuzzCase, a: HttpAnswer, v: Verdict): void {
  if (!fromService(a)) {
    // uWS itself refusing broken HTTP: fine for a broken request, a failure for a well-formed one.
    if (c.expect === "answer") v.findings.push({ check: "not-from-service", detail: `status ${a.status} without the service's headers` });
    return;
  }
  if (a.status >= 500) {
    const message = safeMessage(a);
    if (a.status === 503 && LOAD_SHEDDING.test(message)) v.shedding = message;
    else v.findings.push({ check: "5xx", detail: `${a.status}: ${message}` });
  }
  if (exempt(c, a)) return;
  const problem = envelopeProblem(a);
  if (problem) v.findings.push({ check: "envelope", detail: `${a.status}: ${problem}` });
}

function safeMessage(a: HttpAnswer): string {
  try {
    return String(JSON.parse(a.body.toString("utf8")).message);
  } catch {
    return a.body.subarray(0, 120).toString("utf8");
  }
}

export function checkExchange(c: FuzzCase, x: Exchange, limits: { answerMs: number; holdMs: number }): Verdict {
  const v: Verdict = { findings: [] };
  if (x.ending === "refused") v.findings.push({ check: "server-down", detail: "connection refused" });
  if (x.malformed) v.findings.push({ check: "bad-response", detail: x.malformed });
  for (const a of x.answers) checkAnswer(c, a, v);
  if (x.answers.length === 0 && c.expect === "answer") {
    if (x.ending === "timeout") v.findings.push({ check: "hang", detail: `no answer within ${limits.answerMs} ms` });
    else if (x.ending === "closed" || x.ending === "reset")
      v.findings.push({ check: "dropped", detail: `connection ${x.ending} without an answer${x.error ? ` (${x.error})` : ""}` });
  }
  if (x.answers.length === 0 && c.delivery.kind === "held" && x.ending === "timeout") {
    v.findings.push({ check: "hang", detail: `the server kept the connection open, unanswered, over ${limits.holdMs} ms` });
  }
  return v;
}

/** The report's column for an exchange: the (first) status, or how it ended without one. */
export function outcomeLabel(x: Exchange): string {
  if (x.answers.length === 0) return x.ending;
  const a = x.answers[0];
  return fromService(a) ? String(a.status) : `uws-${a.status}`;
}
