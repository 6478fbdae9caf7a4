import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { ApiResponse } from "./api.js";

/**
 * Sends a request over a bare socket in the given pieces, a few milliseconds apart (as a slow network splits a
 * request head over several packets), and reads the first answer. Resolves `undefined` if none came in time.
 */
export async function sendInPieces(base: string, pieces: string[], timeoutMs = 5000): Promise<Pick<ApiResponse, "status" | "body"> | undefined> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let text = "";
  const answered = new Promise<void>((resolve) => {
    socket.on("data", (d) => {
      text += d.toString("utf8");
      const head = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)/i.exec(text)?.[1];
      if (head !== -1 && length !== undefined && Buffer.byteLength(text.slice(head + 4)) >= Number(length)) resolve();
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  for (const piece of pieces) {
    socket.write(piece);
    await sleep(20);
  }
  await Promise.race([answered, sleep(timeoutMs)]);
  socket.destroy();
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  if (!m) return undefined;
  return { status: Number(m[1]), body: JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) };
}
