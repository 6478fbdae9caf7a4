import type pg from "pg";
import type { LoginThrottle } from "./accounts/loginThrottle.js";
import type { Mailer } from "./accounts/mailer.js";
import type { ApiKeyAuth } from "./auth/apiKeyAuth.js";
import type { KeyCache } from "./auth/keyCache.js";
import type { PasswordHasher } from "./auth/passwords.js";
import type { Limiter } from "./auth/rateLimit.js";
import type { TokenSigner } from "./auth/tokens.js";
import type { Config } from "./config.js";
import type { ErasureRunner } from "./erasure/erasureRunner.js";
import type { DatabaseHealth } from "./db/health.js";
import type { ExperimentCache } from "./experiments/experimentCache.js";
import type { Batcher } from "./ingest/batcher.js";
import type { OrgQuotas } from "./ingest/quotas.js";
import type { Attribution } from "./recommend/attribution.js";
import type { RecommenderPool } from "./recommend/recommenderPool.js";
import type { RuleFeed } from "./rules/ruleFeed.js";

/** What route handlers depend on, built once in main.ts. */
export interface Services {
  config: Config;
  pool: pg.Pool;
  health: DatabaseHealth;
  tokens: TokenSigner;
  keys: KeyCache;
  apiKeys: ApiKeyAuth;
  authLimiter: Limiter;
  /** POST /v1/members per organisation. */
  membersLimiter: Limiter;
  /** POST /v1/recommend/preview per organisation: each ranks on a recommender thread outside its fair shares. */
  previewLimiter: Limiter;
  loginThrottle: LoginThrottle;
  passwords: PasswordHasher;
  mailer: Mailer;
  batcher: Batcher;
  quotas: OrgQuotas;
  recommender: RecommenderPool;
  attribution: Attribution;
  /** Every organisation's running experiments, by scenario. */
  experiments: ExperimentCache;
  erasures: ErasureRunner;
  /** Every organisation's rules as the recommender threads hold them (README, Rules). */
  rules: RuleFeed;
  /** This process, as its erasure notices name it (CLUSTER=1: the cluster's origin). */
  origin: string;
}
