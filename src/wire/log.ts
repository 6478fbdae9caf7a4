const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;
type Level = LogLevel;

let level: Level = "info";
let threshold: number = LEVELS.info;

/** Each thread has its own copy of this module: the front sets it from config and hands it to every thread it starts. */
export function setLogLevel(to: Level): void {
  level = to;
  threshold = LEVELS[to];
}

export function logLevel(): Level {
  return level;
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
}

/** One JSON line per entry, so logs can be read by people and by tools. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
