/** A fuzz case as the bytes that go on the socket: request line, headers, framing, body. */
import type { Framing, FuzzCase, RawRequest } from "./case.js";

const CRLF = "\r\n";
const BODYLESS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);

export function encodeCase(c: FuzzCase): Buffer {
  return encode(c.request, c.framing);
}

export function encode(r: RawRequest, framing: Framing): Buffer {
  const lines: Buffer[] = [Buffer.from(`${r.method} ${r.target} ${r.version}${CRLF}`, "latin1")];
  for (const [name, value] of r.headers) lines.push(Buffer.concat([Buffer.from(`${name}: `, "latin1"), asBytes(value), Buffer.from(CRLF)]));
  const framingHeader = framingLine(r, framing);
  if (framingHeader) lines.push(Buffer.from(framingHeader + CRLF, "latin1"));
  lines.push(Buffer.from(CRLF));
  return Buffer.concat([...lines, framedBody(r.body, framing)]);
}

/** Header values given as text go out as UTF-8, as a JavaScript client library would send them. */
function asBytes(v: string | Buffer): Buffer {
  return typeof v === "string" ? Buffer.from(v, "utf8") : v;
}

function framingLine(r: RawRequest, f: Framing): string | undefined {
  switch (f.kind) {
    case "length":
      return r.body.length === 0 && BODYLESS.has(r.method) ? undefined : `content-length: ${r.body.length}`;
    case "length-lie":
      return `content-length: ${f.value}`;
    case "chunked":
      return "transfer-encoding: chunked";
    case "none":
      return undefined;
  }
}

function framedBody(body: Buffer, f: Framing): Buffer {
  if (f.kind !== "chunked") return body;
  const parts: Buffer[] = [];
  let at = 0;
  for (const size of [...f.sizes, Infinity]) {
    if (at >= body.length) break;
    const chunk = body.subarray(at, Math.min(body.length, at + size));
    at += chunk.length;
    parts.push(Buffer.from(chunkSizeLine(chunk.length, f.style) + CRLF, "latin1"), chunk, Buffer.from(CRLF));
  }
  if (f.final) parts.push(Buffer.from(`0${CRLF}${CRLF}`));
  return Buffer.concat(parts);
}

function chunkSizeLine(n: number, style: Extract<Framing, { kind: "chunked" }>["style"]): string {
  const hex = n.toString(16);
  if (style === "upper") return hex.toUpperCase();
  if (style === "padded") return hex.padStart(8, "0");
  if (style === "extension") return `${hex};fuzz=1`;
  return hex;
}
