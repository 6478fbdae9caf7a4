/** The server's JSON log lines (LOG_LEVEL=info), read from its captured output, and waits on them. */
import { setTimeout as sleep } from "node:timers/promises";
import type { Child } from "./processes.js";

export type LogLine = Record<string, unknown> & { msg: string; t: string };

export function logLines(child: Child, msg: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of child.output().split("\n")) {
    // Cheap test first: the output also holds PostgreSQL's own lines and the listening banner.
    if (!line.startsWith("{") || !line.includes(msg)) continue;
    try {
      const parsed = JSON.parse(line) as LogLine;
      if (parsed.msg === msg) out.push(parsed);
    } catch {
      // a line cut by a chunk boundary: read again on the next poll
    }
  }
  return out;
}

/** Resolves with the first line `msg` (or any of several) that satisfies `match`, once the server has written it. */
export async function waitForLog(child: Child, msg: string | readonly string[], match: (l: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
  const until = performance.now() + timeoutMs;
  const msgs = typeof msg === "string" ? [msg] : msg;
  for (;;) {
    const hit = msgs.flatMap((m) => logLines(child, m)).find(match);
    if (hit) return hit;
    if (child.proc.exitCode !== null) throw new Error(`the server exited while waiting for "${msg}":\n${child.output().slice(-2000)}`);
    if (performance.now() > until) throw new Error(`no "${msg}" from the server within ${timeoutMs / 1000}s`);
    await sleep(250);
  }
}
