/**
 * One request on a keep-alive connection (node:http Agent; the pool queues requests while its sockets are
 * busy, which counts as latency since it is measured from the due time). Failures are answers too: status 0
 * with the reason, so a refused connection or a timeout is counted, never thrown.
 */
import http from "node:http";

export interface Answer {
  status: number;
  body: string;
  /** Set when no HTTP answer came (socket error, timeout). */
  failure?: string;
}

const TIMEOUT_MS = 30_000;
/**
 * The server (uWS) closes a connection idle for 10 s. A client starved of CPU at that moment has not yet read
 * the close when it reuses the socket, and the request fails ("socket hang up"): an artefact of the client,
 * not an answer of the server. Idle sockets are closed here first.
 */
const IDLE_SOCKET_MS = 5_000;

export function keepAliveAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, timeout: IDLE_SOCKET_MS });
}

/** A POST of `body`, or a GET without one. */
export function send(agent: http.Agent, base: URL, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve) => {
    const method = body === undefined ? "GET" : "POST";
    const length = body === undefined ? {} : { "content-length": Buffer.byteLength(body) };
    const req = http.request({ agent, host: base.hostname, port: base.port, path, method, headers: { ...headers, ...length } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on("error", (e) => resolve({ status: 0, body: "", failure: e.message }));
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000}s`)));
    req.on("error", (e) => resolve({ status: 0, body: "", failure: e.message }));
    req.end(body);
  });
}
