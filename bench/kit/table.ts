/** Tables and number formats the reports print. */
export const int = (x: number): string => Math.round(x).toLocaleString("en-US");
export const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;

/** Columns padded to their widest cell; the first left-aligned, the rest right-aligned. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
