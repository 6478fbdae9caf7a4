import { eventWeight } from "../../src/ingest/schemas.js";
import { OrgIndex } from "../../workers/index/orgIndex.js";
import type { AlsParams } from "../../src/wire/als.js";
import { trainModel } from "../../workers/training/train.js";
import { trainingSet } from "../../workers/training/trainingSet.js";
import type { Interaction } from "./csv.js";

/**
 * The organisation's index as the server would hold it after ingesting the training interactions: every item
 * of the file upserted as active first (the catalog knows items nobody has touched yet), then each interaction
 * through the same `applyEvent` the recommender threads run for live batches.
 */
export function replay(train: Interaction[], allItems: Iterable<string>, nowS: number): OrgIndex {
  const index = new OrgIndex(1, nowS);
  for (const item of allItems) index.upsertItem(item, "item", "active", {}, nowS);
  for (const r of train) {
    index.applyEvent(
      {
        userId: r.user,
        itemId: r.item || null,
        family: r.family,
        name: r.name,
        weight: eventWeight(r.name),
        previousUserId: null,
        atS: r.atMs / 1000,
      },
      nowS,
    );
  }
  return index;
}

/** Trains the model the way the training scheduler does and swaps it in; returns the training time (ms). */
export function trainInto(index: OrgIndex, params: AlsParams): { ms: number; interactions: number } {
  const { matrix, userVersions, recency, rowMax } = trainingSet(index);
  const started = performance.now();
  index.model = trainModel(matrix, userVersions, params, undefined, recency, rowMax);
  return { ms: performance.now() - started, interactions: matrix.indptr[matrix.rows]! };
}
