/**
 * A short phase against a server on the default limits (10 sign-ins per IP, 10 wrong passwords per email, 1,000 requests per organisation
 * per window): the 429s arrive when they should, with the envelope, Retry-After and the RateLimit-* headers.
 */
import { randomUUID } from "node:crypto";
import { envelopeProblem } from "./checks.js";
import type { Fixture } from "./fixtures.js";
import type { HttpAnswer } from "../kit/rawHttp.js";

const AUTH_LIMIT = 10;
const LOGIN_FAILURES_LIMIT = 10;
const API_LIMIT = 1000;
const CONCURRENCY = 8;

export type PhaseResult = Awaited<ReturnType<typeof rateLimitPhase>>;

async function answer(url: string, init: RequestInit): Promise<HttpAnswer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const headers = new Map<string, string[]>();
  res.headers.forEach((v, k) => headers.set(k, [v]));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

function countStatuses(answers: HttpAnswer[]): string {
  const m = new Map<number, number>();
  for (const a of answers) m.set(a.status, (m.get(a.status) ?? 0) + 1);
  return [...m]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(", ");
}

/** Every 429 must carry the envelope and Retry-After; `rateHeaders`: and the RateLimit-* headers. */
function check429s(what: string, answers: HttpAnswer[], rateHeaders: string[], problems: string[]): void {
  for (const a of answers.filter((x) => x.status === 429)) {
    const p = envelopeProblem(a);
    if (p) problems.push(`${what}: 429 envelope: ${p}`);
    for (const h of rateHeaders) if (!a.headers.has(h)) problems.push(`${what}: 429 without ${h}`);
  }
}

export async function rateLimitPhase(url: string, fx: Fixture) {
  const problems: string[] = [];
  const lines: string[] = [];
  const rateHeaders = ["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"];

  /** `n` sign-ins one after another, the i-th from address `ip(i)` with `body(i)`. */
  const signIns = async (n: number, ip: (i: number) => string, body: (i: number) => object) => {
    const out: HttpAnswer[] = [];
    for (let i = 0; i < n; i++) {
      const headers = { "content-type": "application/json", "x-forwarded-for": ip(i) };
      out.push(await answer(`${url}/auth/login`, { method: "POST", headers, body: JSON.stringify(body(i)) }));
    }
    return out;
  };
  // An email of its own each: the fuzz phase's wrong passwords for the fixture's emails count against them (per email).
  const logins = await signIns(
    AUTH_LIMIT + 3,
    () => "10.250.0.1",
    () => ({ email: `limits-ip-${randomUUID()}@example.com`, password: "not the password" }),
  );
  const firstLimited = logins.findIndex((a) => a.status === 429);
  lines.push(`sign-ins from one IP: ${countStatuses(logins)} (first 429 at request ${firstLimited + 1})`);
  if (firstLimited !== AUTH_LIMIT) problems.push(`sign-ins: the first 429 came at request ${firstLimited + 1}, not ${AUTH_LIMIT + 1}`);
  check429s("sign-ins", logins, rateHeaders, problems);

  // Wrong passwords for one email, each from an address of its own: the per-email limit, not the per-IP one.
  const guessed = `limits-email-${randomUUID()}@example.com`;
  const guesses = await signIns(
    LOGIN_FAILURES_LIMIT + 2,
    (i) => `10.251.0.${i + 1}`,
    (i) => ({ email: guessed, password: `guess ${i}` }),
  );
  const firstLocked = guesses.findIndex((a) => a.status === 429);
  lines.push(`wrong passwords for one email from many IPs: ${countStatuses(guesses)} (first 429 at request ${firstLocked + 1})`);
  if (firstLocked !== LOGIN_FAILURES_LIMIT) {
    problems.push(`per-email sign-ins: the first 429 came at request ${firstLocked + 1}, not ${LOGIN_FAILURES_LIMIT + 1}`);
  }
  check429s("per-email sign-ins", guesses, ["retry-after"], problems);

  const api: HttpAnswer[] = [];
  let sent = 0;
  const body = JSON.stringify({ strategy: "popular", limit: 5 });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < API_LIMIT + 20) {
        sent++;
        api.push(
          await answer(`${url}/v1/recommend`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": fx.a.pk }, body }),
        );
      }
    }),
  );
  const ok = api.filter((a) => a.status === 200).length;
  lines.push(`recommend with one organisation's key: ${countStatuses(api)}`);
  if (ok !== API_LIMIT) problems.push(`recommend: ${ok} answers 200 before the limit, not ${API_LIMIT}`);
  if (!api.some((a) => a.status === 429)) problems.push("recommend: no 429 past the limit");
  check429s("recommend", api, rateHeaders, problems);
  for (const a of api.filter((x) => x.status !== 429 && x.status !== 200))
    problems.push(`recommend: unexpected ${a.status} ${a.body.subarray(0, 200).toString()}`);
  return { lines, problems };
}
