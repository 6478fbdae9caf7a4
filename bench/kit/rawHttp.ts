/**
 * HTTP/1.1 as bytes, for the clients that write to a socket themselves (the load generators, the fuzzer, tests of
 * framing): requests built whole ahead of time, and responses read out of the bytes a socket received.
 */

/** The head of a request on a keep-alive connection with `headers`, up to (not including) its Content-Length. */
export function requestHead(method: string, url: URL, headers: Record<string, string>): string {
  let head = `${method} ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return head;
}

/** The whole request: `head` (from requestHead), the body's Content-Length, and the body. */
export function withBody(head: string, body: string): Buffer {
  return Buffer.from(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

const HEAD_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/**
 * The status of the first response in `buf` and where it ends, once it is all there (framed by Content-Length,
 * or without a body): the quick read of a client that only counts answers. Undefined while more is owed.
 */
export function nextAnswer(buf: Buffer): { status: number; end: number } | undefined {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = buf.toString("latin1", 0, headEnd + 2);
  const end = headEnd + 4 + Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
  return buf.length < end ? undefined : { status: Number(head.slice(9, 12)), end };
}

export interface HttpAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps every value. */
  headers: Map<string, string[]>;
  body: Buffer;
}

export interface Parsed {
  answers: HttpAnswer[];
  /** True when the bytes end inside a response (more is owed). */
  partial: boolean;
  /** A response that could not be read (not HTTP, bad length): the reason. */
  malformed?: string;
}

/**
 * Every complete response in `buf`. `bodyless[i]`: whether the i-th request was a HEAD (its answer has no body
 * whatever its Content-Length says). `closed`: the connection has ended, so a body without length ends here.
 */
export function parseAnswers(buf: Buffer, bodyless: boolean[], closed: boolean): Parsed {
  const answers: HttpAnswer[] = [];
  let at = 0;
  while (at < buf.length) {
    const r = parseOne(buf, at, bodyless[answers.length] ?? false, closed);
    if (r === "partial") return { answers, partial: true };
    if (typeof r === "string") return { answers, partial: false, malformed: r };
    at = r.end;
    // A 1xx (100 Continue) precedes the real answer.
    if (r.answer.status >= 200) answers.push(r.answer);
  }
  return { answers, partial: false };
}

function parseOne(buf: Buffer, at: number, head: boolean, closed: boolean): { answer: HttpAnswer; end: number } | "partial" | string {
  const headEnd = buf.indexOf(HEAD_END, at);
  if (headEnd === -1) return closed ? "the connection closed inside a response head" : "partial";
  const lines = buf.subarray(at, headEnd).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0]);
  if (!m) return `not an HTTP status line: ${JSON.stringify(lines[0].slice(0, 80))}`;
  const status = Number(m[1]);
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return `a header line without a name: ${JSON.stringify(line.slice(0, 80))}`;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const bodyStart = headEnd + HEAD_END.length;
  if (head || status < 200 || status === 204 || status === 304) return { answer: { status, headers, body: Buffer.alloc(0) }, end: bodyStart };
  if (headers.get("transfer-encoding")?.some((v) => /chunked/i.test(v))) return dechunk(buf, bodyStart, status, headers, closed);
  const length = headers.get("content-length");
  if (length) {
    if (length.length > 1 || !/^\d+$/.test(length[0])) return `a bad Content-Length: ${length.join(", ")}`;
    const end = bodyStart + Number(length[0]);
    if (buf.length < end) return closed ? "the connection closed inside a response body" : "partial";
    return { answer: { status, headers, body: buf.subarray(bodyStart, end) }, end };
  }
  if (!closed) return "partial";
  return { answer: { status, headers, body: buf.subarray(bodyStart) }, end: buf.length };
}

function dechunk(buf: Buffer, at: number, status: number, headers: Map<string, string[]>, closed: boolean) {
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = buf.indexOf("\r\n", at);
    if (lineEnd === -1) return closed ? "the connection closed inside a chunked body" : "partial";
    const size = parseInt(buf.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) return "a bad chunk size in the response";
    const dataStart = lineEnd + 2;
    if (size === 0) {
      const end = buf.indexOf(HEAD_END.subarray(0, 2), dataStart);
      if (end === -1) return closed ? "the connection closed inside a chunked body" : "partial";
      return { answer: { status, headers, body: Buffer.concat(parts) }, end: end + 2 };
    }
    if (buf.length < dataStart + size + 2) return closed ? "the connection closed inside a chunked body" : "partial";
    parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}
