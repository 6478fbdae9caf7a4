import { SKETCH_SIZE } from "../index/tokenSketch.js";

/**
 * The most work one rank request may do on its thread, whatever the organisation's data: filter probes (one
 * binary search of an item's values each, see AttributeValues), attribute neighbours walked, and merge steps
 * of attribute similarities (two sketches, at most 2 × SKETCH_SIZE steps each, SKETCH_SIZE when either set
 * is large). Each is a few hundred thousand simple steps at most, about a millisecond of an idle core; past
 * it a request answers with what it found (filters refuse the items not yet checked; similarities count as
 * 0). An ordinary filter (a few values) probes a few times per item: 20,000 probes check thousands of items.
 */
export const WORK_BUDGET = {
  filterProbes: 20_000,
  attributeVisits: 2_000,
  comparisonSteps: 2_000 * SKETCH_SIZE,
} as const;

/** The work of the request being ranked (one thread ranks one request at a time). */
export class Work {
  filterProbes = 0;
  /**
   * Items the request asked about: each eligibility test and each item a catalog scan passes. Not a budget: what
   * tests read to show that a request looks at a bounded number of items, never the whole catalog.
   */
  itemsVisited = 0;
  /** Merge steps of similarities: counted by the attribute index through this object. */
  readonly comparisons = { n: 0, max: WORK_BUDGET.comparisonSteps };

  /** A new request begins. */
  reset(): void {
    this.filterProbes = 0;
    this.itemsVisited = 0;
    this.comparisons.n = 0;
  }

  filterProbesLeft(): boolean {
    return this.filterProbes < WORK_BUDGET.filterProbes;
  }
}

export const work = new Work();
