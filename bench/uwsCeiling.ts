/**
 * The answer-only ceiling: a bare uWebSockets.js endpoint that reads the body, JSON.parses it and answers 202.
 * Run as a child process by bench/ingest.ts; prints `listening on PORT` and serves until killed.
 */
import uWS from "uWebSockets.js";

const app = uWS.App();
app.any("/*", (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    let status = "202 Accepted";
    try {
      JSON.parse(body.toString("utf8"));
    } catch {
      status = "400 Bad Request";
    }
    if (aborted) return;
    res.cork(() => {
      res.writeStatus(status);
      res.writeHeader("content-type", "application/json; charset=utf-8");
      res.end('{"success":true,"message":"accepted","data":{"accepted":1},"error":null}');
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
