import { describe, expect, it } from "vitest";
import { canonicalAddress, DEFAULT_TRUSTED_PROXIES, TrustedProxies } from "../../src/http/trustedProxies.js";

function proxies(text: string): TrustedProxies {
  const parsed = TrustedProxies.parse(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

const loopback = proxies(DEFAULT_TRUSTED_PROXIES);
/** A balancer at 10.0.0.5 and an edge tier in 192.0.2.0/24 and 2001:db8:1::/48. */
const chain = proxies("10.0.0.5, 192.0.2.0/24, 2001:db8:1::/48");

describe("TrustedProxies.clientAddress", () => {
  it("takes the peer itself when the peer is not a trusted proxy, whatever its X-Forwarded-For says", () => {
    expect(loopback.clientAddress("203.0.113.7", "198.51.100.1")).toBe("203.0.113.7");
    expect(chain.clientAddress("203.0.113.7", "10.0.0.5, 192.0.2.1")).toBe("203.0.113.7");
  });

  it("takes the entry a trusted proxy appended, not the forged ones the client put before it", () => {
    expect(loopback.clientAddress("127.0.0.1", "6.6.6.6, 203.0.113.7")).toBe("203.0.113.7");
    expect(loopback.clientAddress("127.0.0.1", "6.6.6.6,7.7.7.7,203.0.113.7")).toBe("203.0.113.7");
  });

  it("skips every trusted hop from the right and takes the first untrusted one", () => {
    expect(chain.clientAddress("10.0.0.5", "6.6.6.6, 203.0.113.7, 192.0.2.40, 192.0.2.9")).toBe("203.0.113.7");
    expect(chain.clientAddress("10.0.0.5", "203.0.113.7, 2001:db8:1:ff::3")).toBe("203.0.113.7");
  });

  it("takes the peer when a trusted proxy sent no X-Forwarded-For", () => {
    expect(loopback.clientAddress("127.0.0.1", "")).toBe("127.0.0.1");
  });

  it("takes the left-most entry when every hop is trusted (a client on the proxy's own host)", () => {
    expect(loopback.clientAddress("127.0.0.1", "127.0.0.2, ::1")).toBe("127.0.0.2");
  });

  it("stops at the last trusted address when it meets an entry that is not an address", () => {
    for (const garbage of ["unknown", "", "1.2.3.4:80", "[::1]", "203.0.113.007", "fe80::1%eth0", "x".repeat(1000)])
      expect(loopback.clientAddress("127.0.0.1", `6.6.6.6, ${garbage}, 127.0.0.9`), garbage).toBe("127.0.0.9");
    expect(loopback.clientAddress("127.0.0.1", "garbage")).toBe("127.0.0.1");
  });

  it("matches IPv6 peers and entries in any spelling against IPv6 ranges, and answers them compressed", () => {
    expect(loopback.clientAddress("0000:0000:0000:0000:0000:0000:0000:0001", "2001:DB8::0:7")).toBe("2001:db8::7");
    expect(chain.clientAddress("10.0.0.5", "2001:db8:2::1, 2001:0db8:0001:0000::1")).toBe("2001:db8:2::1");
  });

  it("treats an IPv4-mapped IPv6 address (as uWebSockets.js spells IPv4 peers) as the IPv4 address", () => {
    expect(loopback.clientAddress("0000:0000:0000:0000:0000:ffff:7f00:0001", "203.0.113.7")).toBe("203.0.113.7");
    expect(loopback.clientAddress("0000:0000:0000:0000:0000:ffff:7f00:0001", "")).toBe("127.0.0.1");
    expect(chain.clientAddress("::ffff:10.0.0.5", "::ffff:203.0.113.7, ::ffff:192.0.2.3")).toBe("203.0.113.7");
  });

  it("honours a CIDR range's bounds exactly", () => {
    const range = proxies("192.0.2.64/26");
    expect(range.clientAddress("192.0.2.64", "203.0.113.7")).toBe("203.0.113.7");
    expect(range.clientAddress("192.0.2.127", "203.0.113.7")).toBe("203.0.113.7");
    expect(range.clientAddress("192.0.2.63", "203.0.113.7")).toBe("192.0.2.63");
    expect(range.clientAddress("192.0.2.128", "203.0.113.7")).toBe("192.0.2.128");
  });

  it("walks a header of thousands of trusted entries in one pass", () => {
    const header = ["203.0.113.7", ...Array.from({ length: 5000 }, (_, i) => `127.0.${i >> 8}.${i & 255}`)].join(",");
    expect(loopback.clientAddress("127.0.0.1", header)).toBe("203.0.113.7");
  });
});

describe("TrustedProxies.parse", () => {
  it("accepts addresses and CIDR ranges of both families, with spaces and empty items", () => {
    expect(String(TrustedProxies.parse(" 10.0.0.1 , 10.1.0.0/16,,::1, 2001:db8::/32, 0.0.0.0/0 "))).toBe(
      "10.0.0.1,10.1.0.0/16,::1,2001:db8::/32,0.0.0.0/0",
    );
    expect(TrustedProxies.parse("")).toBeInstanceOf(TrustedProxies);
  });

  it.each([
    ["a host name", "proxy.internal", /not an IP address/],
    ["a prefix too long for IPv4", "10.0.0.0/33", /prefix length/],
    ["a prefix too long for IPv6", "::/129", /prefix length/],
    ["a prefix that is not a number", "10.0.0.0/8x", /prefix length/],
    ["an empty prefix", "10.0.0.0/", /prefix length/],
    ["an address with a port", "10.0.0.1:80", /not an IP address/],
  ])("refuses %s", (_, text, reason) => {
    expect(TrustedProxies.parse(text)).toMatch(reason);
  });
});

describe("canonicalAddress", () => {
  it("spells IPv4-mapped addresses as IPv4 and IPv6 compressed, and leaves anything else as it is", () => {
    expect(canonicalAddress("0000:0000:0000:0000:0000:ffff:cb00:7107")).toBe("203.0.113.7");
    expect(canonicalAddress("2001:0DB8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(canonicalAddress("unknown")).toBe("unknown");
  });

  it.each([
    ["::", "::"],
    ["1::", "1::"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["2001:db8::1.2.3.4", "2001:db8::102:304"],
    ["1:0:0:1:0:0:0:1", "1:0:0:1::1"],
    ["1:0:0:2:0:0:3:4", "1::2:0:0:3:4"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
  ])("spells %s as %s (RFC 5952)", (text, spelled) => {
    expect(canonicalAddress(text)).toBe(spelled);
  });

  it.each(["1:2:3:4:5:6:7:8:9", "1::2::3", ":1::", "1:2:3:4:5:6:7:8::", "12345::", "::1.2.3", "::1.2.3.4.5", "g::1", "256.1.1.1", "1.2.3"])(
    "leaves %s as it is: not an address",
    (text) => {
      expect(canonicalAddress(text)).toBe(text);
      expect(loopback.clientAddress("127.0.0.1", `203.0.113.7, ${text}`)).toBe("127.0.0.1");
    },
  );
});
