import type { HttpRequest, HttpResponse } from "uWebSockets.js";
import type { LimitResult } from "../auth/rateLimit.js";
import type { AppError } from "../errors.js";
import type { RouteStats } from "../metrics/routeStats.js";
import { canonicalAddress, type TrustedProxies } from "./trustedProxies.js";

const decoder = new TextDecoder();

/**
 * What a handler may know of a request: copied out of uWS's request object, which dies when the request
 * callback returns. A class rather than an object literal with a getter: a literal's accessor is defined
 * anew on every request, which V8 does slowly (it moved the object to dictionary mode).
 */
export class RequestContext {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly apiKey: string | undefined;
  readonly authorization: string | undefined;
  /** Cookie, Origin and Host: the web dashboard's session travels in a cookie, checked against the origin. */
  readonly cookie: string | undefined;
  readonly origin: string | undefined;
  readonly host: string | undefined;
  readonly contentType: string | undefined;
  readonly contentLength: number | undefined;
  readonly startedAt: number;
  params: string[] = [];
  /** Set by uWS's onAborted: the response must not be touched any more. */
  aborted = false;
  /** Called once if the client goes away (a streamed body listens for it). */
  onAbort: (() => void) | undefined = undefined;
  /** Close the connection after the answer: the client is still sending a body nobody will read. */
  closeAfterAnswer = false;
  /** True once a response has been written (see markAnswered). */
  answered = false;
  /** Where this request's answer is counted: its route's metrics cell, set when the router has matched it. */
  stats: RouteStats | undefined = undefined;
  /** Headers every response to this request carries, beyond the rate-limit ones. */
  headers: Array<[string, string]> = [];
  /** The organisation's rate-limit state once counted: every answer carries it as RateLimit-* headers. */
  rateLimit: LimitResult | undefined = undefined;
  /** The whole body as text, once read (routes declared with a body only). */
  bodyText: string | undefined = undefined;
  /** Why the body could not be read (too large), reported when the handler asks for it. */
  bodyError: AppError | undefined = undefined;
  /** Every X-Forwarded-For header as sent, joined (only read with TRUST_PROXY=1); walked on first use of `ip`. */
  private readonly forwarded: string;
  private address: string | undefined = undefined;

  /** `proxies`: the trusted proxies with TRUST_PROXY=1; undefined, the socket's peer is the client. */
  constructor(
    readonly res: HttpResponse,
    req: HttpRequest,
    private readonly proxies: TrustedProxies | undefined,
  ) {
    const lengthHeader = req.getHeader("content-length");
    this.method = req.getMethod().toUpperCase();
    this.path = req.getUrl();
    this.query = req.getQuery() ?? "";
    this.apiKey = req.getHeader("x-api-key") || undefined;
    this.authorization = req.getHeader("authorization") || undefined;
    this.cookie = req.getHeader("cookie") || undefined;
    this.origin = req.getHeader("origin") || undefined;
    this.host = req.getHeader("host") || undefined;
    this.contentType = req.getHeader("content-type") || undefined;
    this.contentLength = lengthHeader === "" ? undefined : Number(lengthHeader);
    this.forwarded = proxies === undefined ? "" : forwardedFor(req);
    this.startedAt = performance.now();
  }

  /** Every writer of a response calls this once: the one place answers are counted (status, duration). */
  markAnswered(status: number): void {
    this.answered = true;
    this.stats?.record(status, (performance.now() - this.startedAt) / 1000);
  }

  /** The client address; worked out on first use (most requests never need it). */
  get ip(): string {
    if (this.address === undefined) {
      // The socket's address stays readable until the response is written or aborted.
      if (this.aborted || this.answered) this.address = "unknown";
      else {
        const peer = decoder.decode(this.res.getRemoteAddressAsText());
        this.address = this.proxies === undefined ? canonicalAddress(peer) : this.proxies.clientAddress(peer, this.forwarded);
      }
    }
    return this.address;
  }
}

/**
 * X-Forwarded-For, every header of that name in order, joined as one list: a proxy that adds its own header
 * beside the client's must not leave the client's as the only one read (uWS's getHeader gives the first).
 */
function forwardedFor(req: HttpRequest): string {
  const first = req.getHeader("x-forwarded-for");
  // None (most requests): no walk over the headers. An empty first one followed by a proxy's only makes the
  // request count as the proxy's own address, which costs nobody but the client that sent it empty.
  if (first === "") return "";
  let all = "";
  req.forEach((name, value) => {
    if (name === "x-forwarded-for") all = all === "" ? value : `${all},${value}`;
  });
  return all;
}
