/** Tables and number formats the reports print. */
export const int = (x: number): string => Math.round(x).toLocaleString("en-US");
export const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;

/**
 * Columns padded to their widest cell; the first left-aligned, the rest right-aligned. `head`: the column names, or
 * one line of them separated by " | ".
 */
export function table(names: readonly string[] | string, rows: string[][]): string {
  const head = typeof names === "string" ? names.split(" | ") : names;
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** Milliseconds: two decimals under 10, whole above; "–" for none. */
export const ms = (x: number): string => (Number.isNaN(x) ? "–" : x.toFixed(x < 10 ? 2 : 0));

/** The value at quantile `q` (0..1) of `xs`: the (q·n)-th smallest, the largest for q = 1; NaN when empty. */
export function percentile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** The upper median (percentile 0.5). */
export const median = (xs: readonly number[]): number => percentile(xs, 0.5);
