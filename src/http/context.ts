import type { HttpRequest, HttpResponse } from "uWebSockets.js";

/** What a handler may know of a request: copied out of uWS's request object, which dies at the first await. */
export interface RequestContext {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** The client address; read on first use (most requests never need it). */
  readonly ip: string;
  readonly apiKey: string | undefined;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly contentLength: number | undefined;
  readonly startedAt: number;
  readonly res: HttpResponse;
  params: string[];
  /** Set by uWS's onAborted: the response must not be touched any more. */
  aborted: boolean;
  /** True once a response has been written. */
  answered: boolean;
  /** Headers every response to this request carries (the rate-limit headers, for instance). */
  headers: Array<[string, string]>;
  body: Promise<Buffer> | undefined;
}

const decoder = new TextDecoder();

export function createContext(res: HttpResponse, req: HttpRequest, trustProxy: boolean): RequestContext {
  const lengthHeader = req.getHeader("content-length");
  const forwarded = trustProxy ? req.getHeader("x-forwarded-for").split(",")[0].trim() : "";
  let ip: string | undefined = forwarded || undefined;
  const ctx: RequestContext = {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? "",
    get ip() {
      // The socket's address stays readable until the response is written or aborted.
      ip ??= ctx.aborted || ctx.answered ? "unknown" : decoder.decode(res.getRemoteAddressAsText());
      return ip;
    },
    apiKey: req.getHeader("x-api-key") || undefined,
    authorization: req.getHeader("authorization") || undefined,
    contentType: req.getHeader("content-type") || undefined,
    contentLength: lengthHeader === "" ? undefined : Number(lengthHeader),
    startedAt: performance.now(),
    res,
    params: [],
    aborted: false,
    answered: false,
    headers: [],
    body: undefined,
  };
  return ctx;
}
