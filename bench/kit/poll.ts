import { setTimeout as sleep } from "node:timers/promises";

/**
 * Asks `check` every `everyMs` until it returns a value (anything but undefined), and resolves with that value.
 * Past `timeoutMs` it throws, with `failure()` as the message; a `check` that throws ends the wait with its error.
 */
export async function pollUntil<T>(
  check: () => T | undefined | Promise<T | undefined>,
  everyMs: number,
  timeoutMs = Infinity,
  failure = () => `nothing within ${timeoutMs / 1000}s`,
): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error(failure());
    await sleep(everyMs);
  }
}
