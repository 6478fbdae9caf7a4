import v8 from "node:v8";

/**
 * How far each thread's heap may grow past what survived its last full collection before the next one starts
 * (V8's `--heap-growing-percent`). V8 sizes that room for small heaps close to the young generation, so under
 * load a recommend-serving thread runs a full collection, a pause of milliseconds, every second or so; more room
 * means a few per minute, for tens of megabytes per thread (docs/recommender.md, "Latency and garbage
 * collection"). Flags are process-wide: set before any worker starts.
 */
export function setHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
