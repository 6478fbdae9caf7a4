/** recommendation-service/client on Node: the same client, with node:crypto's Web Crypto for Node 18 (whose globalThis has none). */
import { webcrypto } from "node:crypto";
import { RecommendationClient as UniversalClient } from "./client.js";
import type { ClientOptions } from "./options.js";

export * from "./index.js";

export class RecommendationClient extends UniversalClient {
  constructor(options: ClientOptions) {
    super({ crypto: webcrypto as unknown as NonNullable<ClientOptions["crypto"]>, ...options });
  }
}
