import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { appError } from "../errors.js";
import { WorkGate, type GateLimits } from "../workGate.js";

/** scrypt with N=2^15, r=8: 32 MiB of memory per hash, the memory-hard cost CONTRACT 3 asks for. */
const PARAMS = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LEN = 32;

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, KEY_LEN, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

interface Stored {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Stored | undefined {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return undefined;
  return { n: Number(n), r: Number(r), p: Number(p), salt: Buffer.from(salt, "base64"), key: Buffer.from(key, "base64") };
}

/** A new hash; with `like` (another hash of the same email, made with today's parameters) it takes that salt. */
async function hash(password: string, like?: string): Promise<string> {
  const other = like === undefined ? undefined : parse(like);
  const reuse = other && other.n === PARAMS.N && other.r === PARAMS.r && other.p === PARAMS.p && other.salt.length >= 16;
  const salt = reuse ? other.salt : randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/**
 * The index of the first stored hash the password matches, or -1. Hashes that share parameters and salt (the
 * accounts of one email) cost one scrypt together, so the work follows the distinct salts, not the accounts.
 */
async function firstMatch(password: string, stored: readonly string[]): Promise<number> {
  const derived = new Map<string, Buffer>();
  for (let i = 0; i < stored.length; i++) {
    const s = parse(stored[i]);
    if (!s) continue;
    const group = `${s.n}$${s.r}$${s.p}$${s.salt.toString("base64")}`;
    let actual = derived.get(group);
    if (!actual) {
      actual = await scrypt(password, s.salt, { N: s.n, r: s.r, p: s.p, maxmem: PARAMS.maxmem });
      derived.set(group, actual);
    }
    if (actual.length === s.key.length && timingSafeEqual(actual, s.key)) return i;
  }
  return -1;
}

/** Checked against when the email is unknown, so that a wrong email costs as long as a wrong password. */
export const DECOY_HASH = await hash(randomBytes(12).toString("hex"));

export interface HashLimits extends GateLimits {
  /** scrypt runs at once (each holds a libuv threadpool thread and 32 MiB for ~100 ms). */
  concurrency: number;
  /** Hashes allowed to wait for a turn; beyond, 503 `unavailable` at once. */
  queueMax: number;
}

/**
 * Every password hash and check of the process goes through here. scrypt runs on libuv's threadpool, which
 * DNS lookups and file reads share, and costs 32 MiB each: a burst of sign-ins or member additions from one
 * organisation must neither take every pool thread nor pile up in memory, so hashes run a few at a time, a
 * bounded number wait, and the rest are refused. Callers hash before taking a database connection.
 */
export class PasswordHasher {
  private readonly gate: WorkGate;

  constructor(limits: HashLimits) {
    this.gate = new WorkGate(limits, () => appError("unavailable", "passwordChecks", {}, { "Retry-After": "1" }));
  }

  /** `like`: a hash of another account of the same email, whose salt the new one shares (see `firstMatch`). */
  hash(password: string, like?: string): Promise<string> {
    return this.gated(() => hash(password, like));
  }

  async verify(password: string, stored: string): Promise<boolean> {
    return (await this.firstMatch(password, [stored])) === 0;
  }

  /** The index of the first of `stored` the password matches, or -1; with none stored, checks a decoy. */
  firstMatch(password: string, stored: readonly string[]): Promise<number> {
    return this.gated(async () => (stored.length === 0 ? (await firstMatch(password, [DECOY_HASH]), -1) : firstMatch(password, stored)));
  }

  private gated<T>(work: () => Promise<T>): Promise<T> {
    return this.gate.run(work);
  }
}
