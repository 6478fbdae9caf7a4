import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { TrustedProxies } from "../src/http/trustedProxies.js";

const MAIN = fileURLToPath(new URL("../dist/src/main.js", import.meta.url));

/** Starts the built server with these settings added and waits for it to exit: its exit code and output. */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  // The settings are read before any database is touched; the URL only keeps a passing check from reaching one.
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "0", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, out };
}

describe("JWT_SECRET", () => {
  it("refuses to start with a 16-character secret, saying it needs 32 bytes", async () => {
    const { code, out } = await refusedStart({ JWT_SECRET: "0123456789abcdef" });
    expect(code).toBe(1);
    expect(out).toMatch(/invalid settings: JWT_SECRET: must be at least 32 bytes in UTF-8/);
    expect(out).not.toMatch(/listening on/);
  });

  it("counts the secret's length in UTF-8 bytes, not characters", () => {
    expect(() => loadConfig({ JWT_SECRET: "é".repeat(15) })).toThrow(/JWT_SECRET: must be at least 32 bytes/); // 30 bytes
    expect(() => loadConfig({ JWT_SECRET: "x".repeat(31) })).toThrow(/JWT_SECRET/);
    expect(loadConfig({ JWT_SECRET: "é".repeat(16) }).JWT_SECRET).toBe("é".repeat(16)); // 32 bytes
    expect(loadConfig({ JWT_SECRET: "x".repeat(32) }).JWT_SECRET).toBe("x".repeat(32));
    expect(loadConfig({}).JWT_SECRET).toBeUndefined();
  });
});

describe("TRUSTED_PROXIES", () => {
  it("trusts loopback, IPv4 and IPv6, when unset", () => {
    const { TRUSTED_PROXIES } = loadConfig({});
    expect(TRUSTED_PROXIES.has("127.0.0.1") && TRUSTED_PROXIES.has("127.255.0.9") && TRUSTED_PROXIES.has("::1")).toBe(true);
    expect(TRUSTED_PROXIES.has("10.0.0.1") || TRUSTED_PROXIES.has("::2")).toBe(false);
  });

  it("takes the listed addresses and ranges instead of loopback when set", () => {
    const { TRUSTED_PROXIES } = loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8,fd00::/8" });
    expect(TRUSTED_PROXIES).toBeInstanceOf(TrustedProxies);
    expect(TRUSTED_PROXIES.has("10.1.2.3") && TRUSTED_PROXIES.has("fd12::1")).toBe(true);
    expect(TRUSTED_PROXIES.has("127.0.0.1")).toBe(false);
  });

  it("refuses to start with an entry that is not an address or CIDR range, naming it", async () => {
    const { code, out } = await refusedStart({ TRUST_PROXY: "1", TRUSTED_PROXIES: "127.0.0.1,balancer.internal" });
    expect(code).toBe(1);
    expect(out).toMatch(/invalid settings: TRUSTED_PROXIES: \W+balancer\.internal\W+ is not an IP address or CIDR range/);
    expect(out).not.toMatch(/listening on/);
  });
});
