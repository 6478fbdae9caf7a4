/**
 * The most (user, item) entries one organisation's training set holds (setting TRAINING_ENTRIES_MAX; read by
 * config on the front thread, applied by the recommender thread as it builds the set: workers/training/trainingSet.ts).
 */
export const DEFAULT_TRAINING_ENTRIES_MAX = 8_000_000;
