import { sameBytes } from "./msgpackCursor.js";

/**
 * The value of an event's time text, computed once for each run of events that share it: events stamped at
 * receipt share their time text, and a batch holds them side by side. One per batch: it compares the text with
 * the last one at its place in the same bytes.
 */
export class TimeText<T> {
  private at = -1;
  private n = 0;
  private value: T | undefined;

  constructor(private readonly parse: (bytes: Uint8Array, at: number, n: number) => T) {}

  /** The value of the text at `bytes[at, at + n)`, parsed only when it differs from the text asked about last. */
  of(bytes: Uint8Array, at: number, n: number): T {
    if (this.at < 0 || !sameBytes(bytes, at, n, this.at, this.n)) {
      this.value = this.parse(bytes, at, n);
      this.at = at;
      this.n = n;
    }
    return this.value as T;
  }
}
