import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;

beforeAll(async () => {
  server = await startServer(); // TRUST_PROXY=1, TRUSTED_PROXIES unset: loopback, where the test connects from
  org = await newOrg(server.url);
});
afterAll(async () => {
  await server?.cleanup();
});

/** A login sent over a raw socket, with these header lines as written (fetch would merge repeated headers). */
function rawLogin(headerLines: string[]): Promise<string> {
  const body = JSON.stringify({ email: org.email, password: org.password });
  const { host, port } = new URL(server.url);
  const head = [
    "POST /auth/login HTTP/1.1",
    `Host: ${host}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    ...headerLines,
  ];
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect({ host: "127.0.0.1", port: Number(port) }, () => socket.write(`${head.join("\r\n")}\r\n\r\n${body}`));
    socket.on("data", (c: Buffer) => (answer += c.toString()));
    socket.on("end", () => resolve(answer.split("\r\n")[0]));
    socket.on("error", reject);
  });
}

const lastLoginIp = async (): Promise<string> =>
  (await server.db().query("SELECT ip FROM audit_log WHERE action = 'auth.login' AND target = $1 ORDER BY id DESC LIMIT 1", [org.email])).rows[0].ip;

describe("the client address with TRUST_PROXY=1", () => {
  it("reads every X-Forwarded-For header in order, so a proxy's header added after the client's decides", async () => {
    expect(await rawLogin(["X-Forwarded-For: 6.6.6.6", "X-Forwarded-For: 203.0.113.9"])).toBe("HTTP/1.1 200 OK");
    expect(await lastLoginIp()).toBe("203.0.113.9");
  });

  it("takes the right-most entry of one header, not the client's forged first one", async () => {
    expect(await rawLogin(["X-Forwarded-For: 6.6.6.6, 203.0.113.10"])).toBe("HTTP/1.1 200 OK");
    expect(await lastLoginIp()).toBe("203.0.113.10");
  });

  it("takes the trusted peer's own address when the header holds no address", async () => {
    expect(await rawLogin(["X-Forwarded-For: not an address"])).toBe("HTTP/1.1 200 OK");
    expect(await lastLoginIp()).toBe("127.0.0.1");
  });
});
