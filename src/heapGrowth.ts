import v8 from "node:v8";

/**
 * How far each thread's heap may grow past what survived its last full collection before the next one starts
 * (V8's `--heap-growing-percent`). V8 sizes that room for small heaps close to the young generation, so under
 * load a recommend-serving thread ran a full collection (a pause of 5–25 ms) about once a second; more room
 * means a few per minute, for tens of megabytes per thread. Flags are process-wide: set before any worker starts.
 */
export function setHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
