/**
 * What the index keeps of one user, whatever their record holds (settings USER_HISTORY_MAX and USER_ITEMS_MAX):
 * a heavy user costs memory, a snapshot's bytes and a training row up to these and no more.
 */
export interface UserLimits {
  /** Events kept in a user's history (newest); a full history drops its oldest quarter into the earlier items. */
  historyMax: number;
  /**
   * Distinct items a user is known by: kept (history and earlier items), trained on, and read as their query
   * (the latest ones).
   */
  itemsMax: number;
}

export const DEFAULT_USER_LIMITS: UserLimits = { historyMax: 128, itemsMax: 4_096 };
