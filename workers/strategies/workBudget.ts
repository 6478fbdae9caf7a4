import { SKETCH_SIZE } from "../index/tokenSketch.js";

/**
 * The most work one rank request may do on its thread, whatever the organisation's data: filter probes (one
 * binary search of an item's values each, see AttributeValues), attribute neighbours walked, and merge steps
 * of attribute similarities (two sketches, at most 2 × SKETCH_SIZE steps each). Measured on the shared
 * 2-core machine, a budget spent in full costs about a millisecond (bench:noisy); past it a request answers
 * with what it found (filters refuse the items not yet checked; similarities count as 0).
 */
export const WORK_BUDGET = {
  filterProbes: 50_000,
  attributeVisits: 2_000,
  comparisonSteps: 2_000 * 2 * SKETCH_SIZE,
} as const;

/** The work of the request being ranked (one thread ranks one request at a time). */
export class Work {
  filterProbes = 0;
  /** Merge steps of similarities: counted by the attribute index through this object. */
  readonly comparisons = { n: 0, max: WORK_BUDGET.comparisonSteps };

  /** A new request begins. */
  reset(): void {
    this.filterProbes = 0;
    this.comparisons.n = 0;
  }

  filterProbesLeft(): boolean {
    return this.filterProbes < WORK_BUDGET.filterProbes;
  }
}

export const work = new Work();
