import { ensureLength } from "./growable.js";
import type { SnapshotReader, SnapshotWriter } from "./snapshotBytes.js";

/**
 * Per-item sums of weights that fade exponentially with age (half-life). Stored as Σ w·2^((t − ref)/h): adding
 * an event is one multiply-add and comparing items needs no per-read decay, because every item shares the factor.
 */
export class DecayedScores {
  private raw = new Float64Array(1024);
  private readonly rate: number;

  constructor(
    readonly halfLifeS: number,
    private ref: number,
  ) {
    this.rate = Math.LN2 / halfLifeS;
  }

  add(item: number, weight: number, atS: number): void {
    if ((atS - this.ref) * this.rate > 600) this.rebase(atS);
    this.raw = ensureLength(this.raw, item + 1);
    this.raw[item]! += weight * Math.exp((atS - this.ref) * this.rate);
  }

  /** Scores in the same units for every item (for ranking); multiply by `scaleAt(now)` for the true value. */
  get scores(): Float64Array {
    return this.raw;
  }

  scaleAt(nowS: number): number {
    return Math.exp((this.ref - nowS) * this.rate);
  }

  /** The decayed sum for `item` as of `nowS`. */
  valueAt(item: number, nowS: number): number {
    return item < this.raw.length ? this.raw[item]! * this.scaleAt(nowS) : 0;
  }

  snapshotTo(w: SnapshotWriter): void {
    w.number(this.ref);
    w.typed(this.raw);
  }

  restoreFrom(r: SnapshotReader): void {
    this.ref = r.number();
    this.raw = r.typed(Float64Array);
  }

  /** Moves the reference time forward so the stored numbers stay far from overflow. */
  private rebase(nowS: number): void {
    const f = Math.exp((this.ref - nowS) * this.rate);
    for (let i = 0; i < this.raw.length; i++) this.raw[i]! *= f;
    this.ref = nowS;
  }
}
