import { randomBytes, randomUUID } from "node:crypto";

/** An answer of the API; its body is untyped unless the caller names its type, as the tests check its shape themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON body, whose fields the tests' assertions read and check
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  json?: unknown;
  raw?: string | Buffer | ReadableStream<Uint8Array>;
  contentType?: string;
  apiKey?: string;
  token?: string;
  headers?: Record<string, string>;
}

/** One HTTP call to the server under test; the body is parsed as JSON whatever the status. */
export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey !== undefined) headers["x-api-key"] = opts.apiKey;
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | ReadableStream<Uint8Array> | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["content-type"] = opts.contentType ?? "application/json";
  } else if (opts.raw !== undefined) {
    body = opts.raw;
    if (opts.contentType) headers["content-type"] = opts.contentType;
  }
  // A streamed body goes out in pieces as it is produced (fetch needs duplex: "half" for that).
  const res = await fetch(base + path, { method, headers, body, ...(body instanceof ReadableStream ? { duplex: "half" } : {}) } as RequestInit);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A client IP of its own, so the per-IP limit on /auth/* (TRUST_PROXY=1 in tests) does not couple tests. */
export function freshIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

export interface Org {
  orgId: string;
  email: string;
  password: string;
  token: string;
  keyPairId: string;
  pk: string;
  sk: string;
}

/** Registers an organisation and generates its first key pair. */
export async function newOrg(base: string): Promise<Org> {
  const email = `owner-${randomUUID()}@example.com`;
  const password = "correct horse battery";
  const reg = await call(base, "POST", "/auth/register", {
    json: { email, password, organisation: `Org ${email}` },
    headers: { "x-forwarded-for": freshIp() },
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const token = reg.body.data.token as string;
  const keys = await call(base, "POST", "/v1/keys", { token });
  if (keys.status !== 201) throw new Error(`key generation failed: ${keys.status} ${JSON.stringify(keys.body)}`);
  return {
    orgId: reg.body.data.organisation.id,
    email,
    password,
    token,
    keyPairId: keys.body.data.key_pair_id,
    pk: keys.body.data.publishable_key,
    sk: keys.body.data.secret_key,
  };
}

export function viewEvent(userId: string, itemId: string, extra: Record<string, unknown> = {}) {
  return { user_id: userId, event_family: "engagement", event_name: "view", item_id: itemId, event_id: randomUUID(), ...extra };
}
