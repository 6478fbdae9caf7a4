import { uuid, type RandomSource } from "./ids.js";
import type { KeyValueStore } from "./storage.js";

/**
 * Who the events are about: the signed-in user once known, else an anonymous id generated once and kept in
 * storage, so a visitor stays one user across pages until `identify()` merges that history into the account.
 */
export class Identity {
  private anonymous: string;
  private user: string | undefined;
  private hash: string | undefined;

  constructor(
    private readonly store: KeyValueStore,
    private readonly prefix: string,
    private readonly random: RandomSource,
    userId: string | undefined,
    userHash: string | undefined,
  ) {
    this.anonymous = store.getItem(`${prefix}:anonymous_id`) ?? this.newAnonymousId();
    this.user = userId ?? store.getItem(`${prefix}:user_id`) ?? undefined;
    this.hash = userId === undefined ? (store.getItem(`${prefix}:user_hash`) ?? undefined) : userHash;
  }

  get anonymousId(): string {
    return this.anonymous;
  }

  get userId(): string {
    return this.user ?? this.anonymous;
  }

  /** The signed-in user's `user_hash`, when the site gave one (identity verification); never for the anonymous id. */
  get userHash(): string | undefined {
    return this.user === undefined ? undefined : this.hash;
  }

  /**
   * Switches to `userId` (and its hash: a new user without one has none; the same user keeps the one it had);
   * answers the anonymous id whose history the service should merge into it, if any.
   */
  identify(userId: string, userHash: string | undefined): string | undefined {
    const same = userId === this.userId;
    if (!same || userHash !== undefined) this.keepHash(userHash);
    if (same) return undefined;
    const previous = this.user === undefined ? this.anonymous : undefined;
    this.user = userId;
    this.store.setItem(`${this.prefix}:user_id`, userId);
    return previous;
  }

  /** Sign-out: later events belong to a new anonymous visitor. */
  reset(): void {
    this.user = undefined;
    this.keepHash(undefined);
    this.store.removeItem(`${this.prefix}:user_id`);
    this.anonymous = this.newAnonymousId();
  }

  private keepHash(userHash: string | undefined): void {
    this.hash = userHash;
    if (userHash === undefined) this.store.removeItem(`${this.prefix}:user_hash`);
    else this.store.setItem(`${this.prefix}:user_hash`, userHash);
  }

  private newAnonymousId(): string {
    const id = `anon-${uuid(this.random)}`;
    this.store.setItem(`${this.prefix}:anonymous_id`, id);
    return id;
  }
}
