/**
 * The server's log, read from its captured output: its JSON lines (LOG_LEVEL=info for the info ones), waits on
 * them, what they count (trainings, warnings, errors) and the lines that mean something broke.
 */
import { pollUntil } from "./poll.js";
import type { Child } from "./processes.js";

export type LogLine = Record<string, unknown> & { msg: string; t: string; level?: string };

/** Each line of the output, parsed when it is a JSON log line (undefined for the rest: PostgreSQL's lines, banners, stacks). */
function* lines(output: string, including = ""): Generator<{ text: string; json: LogLine | undefined }> {
  for (const text of output.split("\n")) {
    // Cheap tests first: most lines are not the one asked for.
    if (!text.includes(including)) continue;
    let json: LogLine | undefined;
    if (text.startsWith("{")) {
      try {
        json = JSON.parse(text) as LogLine;
      } catch {
        // a line cut by a chunk boundary: read again on the next poll
      }
    }
    yield { text, json };
  }
}

export function logLines(child: Pick<Child, "output">, msg: string): LogLine[] {
  return [...lines(child.output(), msg)].flatMap(({ json }) => (json?.msg === msg ? [json] : []));
}

/** Resolves with the first line `msg` (or any of several) that satisfies `match`, once the server has written it. */
export async function waitForLog(child: Child, msg: string | readonly string[], match: (l: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
  const msgs = typeof msg === "string" ? [msg] : msg;
  return pollUntil(
    () => {
      if (child.proc.exitCode !== null) throw new Error(`the server exited while waiting for "${msg}":\n${child.output().slice(-2000)}`);
      return msgs.flatMap((m) => logLines(child, m)).find(match);
    },
    250,
    timeoutMs,
    () => `no "${msg}" from the server within ${timeoutMs / 1000}s`,
  );
}

export type LogCounts = ReturnType<typeof logCounts>;

/** Trainings finished, warnings and errors so far, and the distinct warning and error messages with their counts. */
export function logCounts(server: Child) {
  const c = { trainings: 0, warnings: 0, errors: 0, messages: {} as Record<string, number> };
  for (const { json: l } of lines(server.output())) {
    if (l?.msg === "recommender model trained") c.trainings++;
    if (l?.level === "warn" || l?.level === "error") {
      if (l.level === "warn") c.warnings++;
      else c.errors++;
      const key = `${l.level}: ${l.msg}`;
      c.messages[key] = (c.messages[key] ?? 0) + 1;
    }
  }
  return c;
}

/** Log lines that mean something broke: level error (JSON logs), or Node's own crash and warning output. */
const BAD_TEXT = /recommender thread exited|thread failed|uncaught|unhandled|UnhandledPromiseRejection|^\s*at .+\(.+:\d+:\d+\)$|^\w*Error: /i;

export function logProblems(output: string): string[] {
  const bad: string[] = [];
  for (const { text, json } of lines(output)) {
    if (!text.trim()) continue;
    if (json?.level === "error" || (json?.level === undefined && BAD_TEXT.test(text))) bad.push(text.slice(0, 600));
  }
  return bad;
}
