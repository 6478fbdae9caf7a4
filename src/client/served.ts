import { readJson, type KeyValueStore } from "./storage.js";

const REMEMBERED = 500;

type Entries = Array<[itemId: string, recommendationId: string, atMs: number]>;
const isEntries = (v: unknown): v is Entries => Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 3);

/**
 * Which recommendation last showed each item, kept across pages (a click on one page, the add-to-cart on the
 * next), so an event about a recommended item carries its recommendation_id without the caller copying it.
 */
export class ServedItems {
  private readonly byItem = new Map<string, [string, number]>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly key: string,
    private readonly windowMs: number,
  ) {
    for (const [item, rec, at] of readJson(store, key, isEntries) ?? []) this.byItem.set(item, [rec, at]);
  }

  remember(recommendationId: string, itemIds: readonly string[], now = Date.now()): void {
    if (this.windowMs <= 0) return;
    for (const item of itemIds) {
      this.byItem.delete(item);
      this.byItem.set(item, [recommendationId, now]);
    }
    for (const item of this.byItem.keys()) {
      if (this.byItem.size <= REMEMBERED) break;
      this.byItem.delete(item);
    }
    this.store.setItem(this.key, JSON.stringify([...this.byItem].map(([item, [rec, at]]) => [item, rec, at])));
  }

  /** The recommendation that showed `itemId` within the window, if one did. */
  recommendationFor(itemId: string, now = Date.now()): string | undefined {
    const hit = this.byItem.get(itemId);
    return hit && now - hit[1] <= this.windowMs ? hit[0] : undefined;
  }
}
