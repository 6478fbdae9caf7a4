/** Counts in the server's JSON log (LOG_LEVEL=info): trainings finished, warnings and errors, and the messages seen. */
import type { Child } from "../../kit/processes.js";

export interface LogCounts {
  trainings: number;
  warnings: number;
  errors: number;
  /** Distinct warning and error messages with their counts. */
  messages: Record<string, number>;
}

export function logCounts(server: Child): LogCounts {
  const c: LogCounts = { trainings: 0, warnings: 0, errors: 0, messages: {} };
  for (const line of server.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    let l: { level?: string; msg?: string };
    try {
      l = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    if (l.msg === "recommender model trained") c.trainings++;
    if (l.level === "warn" || l.level === "error") {
      if (l.level === "warn") c.warnings++;
      else c.errors++;
      const key = `${l.level}: ${l.msg}`;
      c.messages[key] = (c.messages[key] ?? 0) + 1;
    }
  }
  return c;
}
