import { CoOccurrence } from "./cooccurrence.js";
import { DecayedScores } from "./decayedScores.js";
import { ensureLength } from "./growable.js";

const DAY_S = 86_400;
/** `popular` counts the last 30 days, fading with a one-week half-life. */
export const POPULAR_WINDOW_S = 30 * DAY_S;
const POPULAR_HALF_LIFE_S = 7 * DAY_S;
/** `trending` compares a fast-fading rate (the last hours) with a slow one (the baseline of the past week). */
export const TREND_FAST_HALF_LIFE_S = 6 * 3600;
export const TREND_SLOW_HALF_LIFE_S = 7 * DAY_S;

const SUPPORT_SHRINK = 5;

/** Aggregates over all users' events: popularity, velocity, co-occurrence and repeat purchases. */
export class Signals {
  readonly popular: DecayedScores;
  readonly trendFast: DecayedScores;
  readonly trendSlow: DecayedScores;
  readonly alsoViewed = new CoOccurrence();
  readonly boughtTogether = new CoOccurrence();
  /** Users who converted on each item at least once, and at least twice. */
  buyers = new Float32Array(1024);
  repeatBuyers = new Float32Array(1024);
  /** Positive interactions per item, undecayed: how much evidence its learned vector rests on. */
  interactions = new Float32Array(1024);
  /** Bumped on every event, so cached rankings know when they may be stale. */
  version = 0;

  constructor(nowS: number) {
    this.popular = new DecayedScores(POPULAR_HALF_LIFE_S, nowS);
    this.trendFast = new DecayedScores(TREND_FAST_HALF_LIFE_S, nowS);
    this.trendSlow = new DecayedScores(TREND_SLOW_HALF_LIFE_S, nowS);
  }

  countInteraction(item: number, weight: number, atS: number, nowS: number): void {
    if (atS >= nowS - POPULAR_WINDOW_S) this.popular.add(item, weight, atS);
    this.trendFast.add(item, weight, atS);
    this.trendSlow.add(item, weight, atS);
    this.interactions = ensureLength(this.interactions, item + 1);
    this.interactions[item]!++;
    this.version++;
  }

  /** `previousPurchases`: how many times this user had converted on the item before this event. */
  countPurchase(item: number, previousPurchases: number): void {
    this.buyers = ensureLength(this.buyers, item + 1);
    this.repeatBuyers = ensureLength(this.repeatBuyers, item + 1);
    if (previousPurchases === 0) this.buyers[item]!++;
    else if (previousPurchases === 1) this.repeatBuyers[item]!++;
  }

  /** Shrinks a similarity towards 0 for items seen in few interactions (their vectors are mostly noise). */
  support(item: number): number {
    const n = item < this.interactions.length ? this.interactions[item]! : 0;
    return n / (n + SUPPORT_SHRINK);
  }

  /** Share of an item's buyers who bought it again (smoothed towards 1 in 10 for items with few buyers). */
  repeatRate(item: number): number {
    const buyers = item < this.buyers.length ? this.buyers[item]! : 0;
    const repeat = item < this.repeatBuyers.length ? this.repeatBuyers[item]! : 0;
    return (repeat + 0.5) / (buyers + 5);
  }

  /** Velocity now against the baseline, in standard deviations of a Poisson count (0 when not growing). */
  trendScore(item: number, nowS: number): number {
    const fast = (this.trendFast.valueAt(item, nowS) * Math.LN2) / TREND_FAST_HALF_LIFE_S;
    const slow = (this.trendSlow.valueAt(item, nowS) * Math.LN2) / TREND_SLOW_HALF_LIFE_S;
    // Rates per day, so that the square root below is over counts of a day's size.
    const recent = fast * DAY_S;
    const baseline = slow * DAY_S;
    return recent <= baseline ? 0 : (recent - baseline) / Math.sqrt(baseline + 1);
  }
}
