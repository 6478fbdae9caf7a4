import type pg from "pg";
import { ChannelListener } from "../db/listener.js";
import type { RecommenderPool } from "../recommend/recommenderPool.js";
import { log } from "../wire/log.js";
import { RULES_CHANNEL, type RuleSet } from "../wire/rules.js";
import { readRuleSets } from "./rules.js";

const RETRY_MS = 1000;
const RETRIES_MAX = 60;

/**
 * Every organisation's enabled rules, as the recommender threads hold them: read at start (before the threads,
 * which get their organisations' sets as they are spawned or restarted), then each set again when it changes
 * here (`changed`, before the change is answered) or, with CLUSTER=1, in another process (its notice on
 * RULES_CHANNEL, heard within milliseconds). After a lost connection every set is read again. A set reaches the
 * threads only when newer than the one held, so readings that cross each other do no harm.
 */
export class RuleFeed {
  private readonly sets = new Map<number, RuleSet>();
  private readonly listener: ChannelListener | undefined;
  private recommender: RecommenderPool | undefined;
  private listened = false;

  /** `connect`: CLUSTER=1 only (a process alone on its database hears of every change itself). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly origin: string,
    connect?: () => pg.Client,
  ) {
    this.listener =
      connect &&
      new ChannelListener(
        connect,
        RULES_CHANNEL,
        (payload) => this.notice(payload),
        () => this.catchUp(),
      );
  }

  /** Listens first, then reads: a change committed in between is heard, not missed. */
  async start(): Promise<void> {
    await this.listener?.start();
    for (const set of await readRuleSets(this.pool)) this.take(set);
  }

  forShard(shard: number, shards: number): RuleSet[] {
    return [...this.sets.values()].filter((s) => s.org % shards === shard && s.rules.length > 0);
  }

  /** The threads exist: every set goes to them (one changed while they were spawned included). */
  attach(recommender: RecommenderPool): void {
    this.recommender = recommender;
    for (const set of this.sets.values()) recommender.rulesChanged(set);
  }

  /**
   * The organisation's rules changed: its set is read again and handed to its thread. The change is committed
   * whatever happens here, so a failed reading is logged and tried again (every second, a minute at most)
   * rather than reported to the caller.
   */
  async changed(org: number, attempt = 1): Promise<void> {
    try {
      for (const set of await readRuleSets(this.pool, org)) this.take(set);
    } catch (err) {
      log.error("changed rules could not be read; trying again", { org, attempt, error: (err as Error).message });
      if (attempt < RETRIES_MAX) setTimeout(() => void this.changed(org, attempt + 1), RETRY_MS).unref();
    }
  }

  stop(): Promise<void> {
    return this.listener?.stop() ?? Promise.resolve();
  }

  private take(set: RuleSet): void {
    const held = this.sets.get(set.org);
    if (held && held.version >= set.version) return;
    this.sets.set(set.org, set);
    this.recommender?.rulesChanged(set);
  }

  private notice(payload: string): void {
    const [org, origin] = payload.split(" ");
    if (origin === this.origin) return;
    if (!/^\d+$/.test(org ?? "")) {
      log.warn("a rule change's notice could not be read", { payload: payload.slice(0, 100) });
      return;
    }
    void this.changed(Number(org));
  }

  private async catchUp(): Promise<void> {
    if (this.listened) for (const set of await readRuleSets(this.pool)) this.take(set);
    this.listened = true;
  }
}
