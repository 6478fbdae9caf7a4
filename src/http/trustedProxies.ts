/** TRUSTED_PROXIES when unset: a balancer on the same host (the sample HAProxy set-up, docs/haproxy.cfg). */
export const DEFAULT_TRUSTED_PROXIES = "127.0.0.0/8,::1";

/** An address as eight 16-bit words (IPv4 as IPv4-mapped IPv6), with its family and its one spelling. */
interface Address {
  words: number[];
  family: 4 | 6;
  text: string;
}

interface Range {
  words: number[];
  /** Leading bits that must match, counted on the 128 (an IPv4 /8 is 96 + 8). */
  bits: number;
}

/**
 * The addresses whose X-Forwarded-For is believed (TRUSTED_PROXIES), and the client address they vouch for.
 * Only the entries the trusted proxies appended are believed: everything left of the first untrusted entry was
 * written by the client, or by a proxy nobody vouches for. Addresses are parsed here rather than by node:net
 * (isIP, BlockList), which costs far more per entry, and a header of a few kilobytes holds hundreds.
 */
export class TrustedProxies {
  private constructor(
    private readonly ranges: Range[],
    /** The list as given, its items trimmed and empty ones left out. */
    private readonly text: string,
  ) {}

  /** A comma-separated list of addresses and CIDR ranges, IPv4 or IPv6; the reason as a string when it is not one. */
  static parse(text: string): TrustedProxies | string {
    const ranges: Range[] = [];
    const entries: string[] = [];
    for (const raw of text.split(",")) {
      const entry = raw.trim();
      if (entry === "") continue;
      entries.push(entry);
      const slash = entry.indexOf("/");
      const address = parseAddress(slash < 0 ? entry : entry.slice(0, slash));
      if (address === undefined) return `"${entry}" is not an IP address or CIDR range`;
      const width = address.family === 4 ? 32 : 128;
      const bits = slash < 0 ? String(width) : entry.slice(slash + 1);
      if (!/^\d{1,3}$/.test(bits) || Number(bits) > width) return `"${entry}" has no valid prefix length`;
      ranges.push({ words: address.words, bits: Number(bits) + 128 - width });
    }
    return new TrustedProxies(ranges, entries.join(","));
  }

  toString(): string {
    return this.text;
  }

  /** Whether an address (any spelling, IPv4-mapped IPv6 as its IPv4 address) is one of the trusted proxies. */
  has(text: string): boolean {
    const address = parseAddress(text);
    return address !== undefined && this.trusts(address);
  }

  /**
   * The client's address: from the socket's peer leftwards through `forwarded` (X-Forwarded-For, every header
   * joined), the first address that is not a trusted proxy. Only a trusted proxy's header is read at all; if the
   * walk meets something that is not an address (a trusted proxy never writes one), it stops at the last trusted
   * address it reached: that proxy's own, so a garbled header never lets its writer choose its bucket.
   */
  clientAddress(peer: string, forwarded: string): string {
    let address = parseAddress(peer);
    if (address === undefined) return peer;
    if (forwarded === "" || !this.trusts(address)) return address.text;
    let end = forwarded.length;
    while (end > 0) {
      const comma = forwarded.lastIndexOf(",", end - 1);
      const next = parseAddress(forwarded.slice(comma + 1, end).trim());
      if (next === undefined) return address.text;
      address = next;
      if (!this.trusts(address)) return address.text;
      end = comma < 0 ? 0 : comma;
    }
    // Every hop, the client included, is a trusted address (a request from the proxy's own host).
    return address.text;
  }

  private trusts(address: Address): boolean {
    return this.ranges.some((r) => inRange(address.words, r));
  }
}

/** The address in the one spelling `clientAddress` gives; anything else as it is. */
export function canonicalAddress(text: string): string {
  return parseAddress(text)?.text ?? text;
}

function inRange(words: number[], range: Range): boolean {
  const whole = range.bits >> 4;
  for (let i = 0; i < whole; i++) if (words[i] !== range.words[i]) return false;
  const rest = range.bits & 15;
  if (rest === 0) return true;
  const mask = (0xffff << (16 - rest)) & 0xffff;
  return (words[whole] & mask) === (range.words[whole] & mask);
}

/**
 * An IPv4 address in dotted decimal (no leading zeros, as node:net's isIP) or an IPv6 address (compressed or not,
 * with an IPv4 tail or not; no zone), in one spelling so that a limit or an audit row keyed on it does not split:
 * IPv6 compressed in lower case (RFC 5952; uWebSockets.js spells peers out in full), IPv4-mapped as IPv4.
 * One pass over the characters, no allocation but the result: every request through a proxy may take one.
 */
function parseAddress(text: string): Address | undefined {
  if (text.length === 0 || text.length > 45) return undefined;
  const v4 = parseIPv4(text, 0);
  if (v4 >= 0) return { words: [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff], family: 4, text };
  const words = parseIPv6(text);
  if (words === undefined) return undefined;
  if (words[0] === 0 && words[1] === 0 && words[2] === 0 && words[3] === 0 && words[4] === 0 && words[5] === 0xffff) {
    return { words, family: 4, text: `${words[6] >> 8}.${words[6] & 255}.${words[7] >> 8}.${words[7] & 255}` };
  }
  return { words, family: 6, text: ipv6Text(words) };
}

/** Dotted decimal from `from` to the end as a 32-bit number; -1 if it is not one. */
function parseIPv4(text: string, from: number): number {
  let value = 0;
  let octets = 0;
  let i = from;
  while (octets < 4) {
    const start = i;
    let octet = 0;
    while (i < text.length && i - start < 3) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      octet = octet * 10 + (c - 48);
      i++;
    }
    // A leading zero is refused (0127 or 010 read as octal by some parsers), as node:net's isIP does.
    if (i === start || octet > 255 || (i - start > 1 && text.charCodeAt(start) === 48)) return -1;
    value = value * 256 + octet;
    octets++;
    if (octets < 4) {
      if (text.charCodeAt(i) !== 46) return -1;
      i++;
    }
  }
  return i === text.length ? value : -1;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Eight words, `::` and an IPv4 tail allowed; undefined if it is not an IPv6 address. */
function parseIPv6(text: string): number[] | undefined {
  const words: number[] = [];
  let gap = -1;
  let i = 0;
  if (text.startsWith("::")) {
    gap = 0;
    i = 2;
    if (i === text.length) return [0, 0, 0, 0, 0, 0, 0, 0];
  }
  for (;;) {
    const start = i;
    let word = 0;
    while (i < text.length && i - start < 4) {
      const d = hexDigit(text.charCodeAt(i));
      if (d < 0) break;
      word = word * 16 + d;
      i++;
    }
    if (text.charCodeAt(i) === 46) {
      // An IPv4 tail: the last two words.
      const v4 = words.length <= 6 ? parseIPv4(text, start) : -1;
      if (v4 < 0) return undefined;
      words.push(v4 >>> 16, v4 & 0xffff);
      break;
    }
    if (i === start) return undefined;
    words.push(word);
    if (i === text.length) break;
    if (text.charCodeAt(i) !== 58 || words.length === 8) return undefined;
    i++;
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return undefined;
      gap = words.length;
      i++;
      if (i === text.length) break;
    }
  }
  if (gap < 0) return words.length === 8 ? words : undefined;
  if (words.length > 7) return undefined;
  const zeros = 8 - words.length;
  words.splice(gap, 0, ...Array<number>(zeros).fill(0));
  return words;
}

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero words (the first of equals) as `::`. */
function ipv6Text(words: number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(":");
  return best < 0 ? hex(words) : `${hex(words.slice(0, best))}::${hex(words.slice(best + bestLength))}`;
}
