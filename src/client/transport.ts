import { RecommendationServiceError, type ClientErrorCode } from "./errors.js";

export interface TransportOptions {
  baseUrl: string;
  fetch: typeof fetch;
  /** A call with no answer after this long fails with `timeout` (and is retried like a lost answer). */
  requestTimeoutMs: number;
}

interface Envelope {
  success?: boolean;
  message?: string;
  data?: unknown;
  error?: string | null;
}

/** POSTs a JSON body with a key and answers the envelope's `data`, or throws the service's error as a value. */
export async function post(t: TransportOptions, path: string, apiKey: string, body: string, keepalive = false): Promise<unknown> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), t.requestTimeoutMs);
  let res: Response;
  try {
    res = await t.fetch(t.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body,
      keepalive,
      signal: abort.signal,
    });
  } catch (err) {
    const code: ClientErrorCode = abort.signal.aborted ? "timeout" : "network_error";
    throw new RecommendationServiceError(code, `${path}: ${code === "timeout" ? `no answer in ${t.requestTimeoutMs} ms` : String(err)}`, 0);
  } finally {
    clearTimeout(timer);
  }
  const envelope = await readEnvelope(res);
  if (res.ok && envelope?.success) return envelope.data;
  throw failure(res, envelope);
}

async function readEnvelope(res: Response): Promise<Envelope | undefined> {
  try {
    return (await res.json()) as Envelope;
  } catch {
    return undefined; // not the service's JSON (a proxy's page, a cut connection): the status speaks alone
  }
}

function failure(res: Response, envelope: Envelope | undefined): RecommendationServiceError {
  const code = (typeof envelope?.error === "string" ? envelope.error : res.status >= 500 ? "unavailable" : "internal_error") as ClientErrorCode;
  const message = envelope?.message ?? `HTTP ${res.status}`;
  return new RecommendationServiceError(code, message, res.status, res.status === 429 ? waitMs(res.headers) : undefined);
}

/** `Retry-After` (seconds), else `RateLimit-Reset` (seconds to the window's end), in milliseconds. */
function waitMs(headers: Headers): number | undefined {
  for (const name of ["retry-after", "ratelimit-reset"]) {
    const s = Number(headers.get(name));
    if (headers.has(name) && Number.isFinite(s) && s >= 0) return s * 1000;
  }
  return undefined;
}
