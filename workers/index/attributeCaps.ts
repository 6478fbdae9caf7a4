/**
 * An organisation's hard limits inside a recommender thread (settings ORG_MAX_ATTRIBUTE_TOKENS and
 * ORG_INDEX_MAX_BYTES): distinct attribute tokens posted for `similar`, and bytes kept for items'
 * attributes (their answer text and filter values). Past one, the index stops adding (new tokens are not
 * posted; new attributes are not kept, the item is served with its type only) and goes on serving. The front
 * refuses uploads past the organisation's quota before this; these stop a hole in that from costing the process.
 */
export interface AttributeCaps {
  maxTokens: number;
  maxBytes: number;
}

/** No limits: for indexes built outside a recommender thread (tests, tools). */
export const UNCAPPED: AttributeCaps = { maxTokens: Infinity, maxBytes: Infinity };
