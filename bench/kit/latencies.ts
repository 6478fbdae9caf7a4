/**
 * Every response time of a run, in milliseconds at full precision. autocannon's own histogram keeps whole
 * milliseconds, and at a fixed rate it "corrects" each sample against an expected interval of ceil(1/rate)
 * ms (rate being requests per second per connection), which adds made-up samples; neither suits a sub-10 ms
 * target, so percentiles are taken from the raw times here.
 */
export class Latencies {
  private values = new Float64Array(1 << 16);
  private n = 0;

  add(ms: number): void {
    if (this.n === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.n++] = ms;
  }

  get count(): number {
    return this.n;
  }

  /** The value at quantile q (0..1) by nearest rank; NaN when empty. */
  percentiles(qs: number[]): number[] {
    if (this.n === 0) return qs.map(() => NaN);
    const sorted = this.values.slice(0, this.n).sort();
    return qs.map((q) => sorted[Math.min(this.n - 1, Math.max(0, Math.ceil(q * this.n) - 1))]!);
  }
}
