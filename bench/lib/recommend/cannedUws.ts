/**
 * The recommend ceiling's server: a bare uWebSockets.js endpoint that reads each POST body, JSON.parses it and
 * answers 200 with the canned JSON in CANNED_BODY (a real recommend answer captured in the same run, so the
 * bytes on the wire match). Run as a child process; prints `listening on PORT` and serves until killed.
 */
import uWS from "uWebSockets.js";

const canned = process.env.CANNED_BODY ?? "{}";
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
    let status = "200 OK";
    try {
      JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8"));
    } catch {
      status = "400 Bad Request";
    }
    if (aborted) return;
    res.cork(() => {
      res.writeStatus(status);
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
