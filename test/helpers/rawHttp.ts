import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { nextAnswer, parseAnswers } from "../../bench/kit/rawHttp.js";
import type { ApiResponse } from "./api.js";

/**
 * Sends a request over a bare socket in the given pieces, a few milliseconds apart (as a slow network splits a
 * request head over several packets), and reads the first answer. Resolves `undefined` if none came in time.
 */
export async function sendInPieces(base: string, pieces: string[], timeoutMs = 5000): Promise<Pick<ApiResponse, "status" | "body"> | undefined> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let received = Buffer.alloc(0);
  const answered = new Promise<void>((resolve) => {
    socket.on("data", (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (nextAnswer(received)) resolve();
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
  const answer = parseAnswers(received, [false], true).answers[0];
  return answer && { status: answer.status, body: JSON.parse(answer.body.toString("utf8")) };
}

/**
 * Sends requests one after another over one keep-alive socket, each once the one before is answered; answers
 * each one's status (undefined from the first that got no answer in time).
 */
export async function onOneConnection(base: string, requests: Buffer[], timeoutMs = 5000): Promise<Array<number | undefined>> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  let pending = Buffer.alloc(0);
  let onAnswer: ((status: number) => void) | undefined;
  socket.on("data", (d: Buffer) => {
    pending = Buffer.concat([pending, d]);
    const answer = nextAnswer(pending);
    if (!answer) return;
    pending = pending.subarray(answer.end);
    onAnswer?.(answer.status);
  });
  socket.on("error", () => undefined);
  const statuses: Array<number | undefined> = [];
  for (const request of requests) {
    const answered = new Promise<number>((resolve) => (onAnswer = resolve));
    socket.write(request);
    const status = await Promise.race([answered, sleep(timeoutMs).then(() => undefined)]);
    statuses.push(status);
    if (status === undefined) break;
  }
  socket.destroy();
  return statuses;
}
