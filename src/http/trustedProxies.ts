import { BlockList, isIP } from "node:net";

/** TRUSTED_PROXIES when unset: a balancer on the same host (the sample HAProxy set-up, docs/haproxy.cfg). */
export const DEFAULT_TRUSTED_PROXIES = "127.0.0.0/8,::1";

/**
 * The addresses whose X-Forwarded-For is believed (TRUSTED_PROXIES), and the client address they vouch for.
 * Only the entries the trusted proxies appended are believed: everything left of the first untrusted entry was
 * written by the client, or by a proxy nobody vouches for.
 */
export class TrustedProxies {
  private constructor(private readonly ranges: BlockList) {}

  /** A comma-separated list of addresses and CIDR ranges, IPv4 or IPv6; the reason as a string when it is not one. */
  static parse(text: string): TrustedProxies | string {
    const ranges = new BlockList();
    for (const raw of text.split(",")) {
      const entry = raw.trim();
      if (entry === "") continue;
      const slash = entry.indexOf("/");
      const address = slash < 0 ? entry : entry.slice(0, slash);
      const family = address.includes("%") ? 0 : isIP(address);
      if (family === 0) return `"${entry}" is not an IP address or CIDR range`;
      const type = family === 4 ? "ipv4" : "ipv6";
      if (slash < 0) {
        ranges.addAddress(address, type);
        continue;
      }
      const bits = entry.slice(slash + 1);
      const prefix = Number(bits);
      if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) return `"${entry}" has no valid prefix length`;
      ranges.addSubnet(address, prefix, type);
    }
    return new TrustedProxies(ranges);
  }

  /** Whether a well-formed address (any textual form, IPv4-mapped IPv6 included) is one of the trusted proxies. */
  has(address: string, family: 4 | 6): boolean {
    return this.ranges.check(address, family === 4 ? "ipv4" : "ipv6");
  }

  /**
   * The client's address: from the socket's peer leftwards through `forwarded` (X-Forwarded-For, every header
   * joined), the first address that is not a trusted proxy. Only a trusted proxy's header is read at all; if the
   * walk meets something that is not an address (a trusted proxy never writes one), it stops at the last trusted
   * address it reached: that proxy's own, so a garbled header never lets its writer choose its bucket.
   */
  clientAddress(peer: string, forwarded: string): string {
    let address = canonical(peer);
    if (address === undefined) return peer;
    if (forwarded === "" || !this.has(address.text, address.family)) return address.text;
    let end = forwarded.length;
    while (end > 0) {
      const comma = forwarded.lastIndexOf(",", end - 1);
      const next = canonical(forwarded.slice(comma + 1, end).trim());
      if (next === undefined) return address.text;
      address = next;
      if (!this.has(address.text, address.family)) return address.text;
      end = comma < 0 ? 0 : comma;
    }
    // Every hop, the client included, is a trusted address (a request from the proxy's own host).
    return address.text;
  }
}

/** The address in the one spelling `clientAddress` gives (see canonical); anything else as it is. */
export function canonicalAddress(text: string): string {
  return canonical(text)?.text ?? text;
}

interface Address {
  text: string;
  family: 4 | 6;
}

/**
 * One spelling per address, so that a limit or an audit row keyed on it does not split: IPv6 compressed and in
 * lower case (uWebSockets.js spells it out in full), IPv4-mapped IPv6 as the IPv4 address it is.
 */
function canonical(text: string): Address | undefined {
  const family = isIP(text);
  if (family === 4) return { text, family };
  // A zone (fe80::1%eth0) names an interface of the host that wrote it: no address to count a client by.
  if (family !== 6 || text.includes("%")) return undefined;
  const host = new URL(`http://[${text}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped === null) return { text: host, family };
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return { text: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, family: 4 };
}
