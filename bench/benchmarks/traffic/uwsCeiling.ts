/**
 * The ceiling server: a bare uWebSockets.js endpoint that reads each body, JSON.parses it and answers a canned
 * response, ingest's 202 unless CEILING_STATUS and CEILING_BODY say otherwise (the recommend ceiling passes a real
 * answer captured in the same run, so the bytes on the wire match). Run as a child process by the ingest and
 * recommend benchmarks and the soak's floor; prints `listening on PORT` and serves until killed. A GET answers
 * 200 at once, so that HAProxy's health checks pass when bench:cluster puts it behind docs/haproxy.cfg.
 */
import uWS from "uWebSockets.js";

const status = process.env.CEILING_STATUS ?? "202 Accepted";
const canned = process.env.CEILING_BODY ?? '{"success":true,"message":"accepted","data":{"accepted":1},"error":null}';

const app = uWS.App();
app.get("/*", (res) => {
  res.cork(() => res.end("{}"));
});
app.any("/*", (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    let answer = status;
    try {
      JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8"));
    } catch {
      answer = "400 Bad Request";
    }
    if (aborted) return;
    res.cork(() => {
      res.writeStatus(answer);
      res.writeHeader("content-type", "application/json; charset=utf-8");
      res.end(canned);
    });
  });
});
app.listen("127.0.0.1", 0, (socket) => {
  if (!socket) {
    process.stderr.write("cannot listen\n");
    process.exit(1);
  }
  process.stdout.write(`listening on ${uWS.us_socket_local_port(socket as unknown as uWS.us_socket)}\n`);
});
