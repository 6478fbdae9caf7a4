import { uuid, type RandomSource } from "./ids.js";
import type { KeyValueStore } from "./storage.js";

/**
 * Who the events are about: the signed-in user once known, else an anonymous id generated once and kept in
 * storage, so a visitor stays one user across pages until `identify()` merges that history into the account.
 */
export class Identity {
  private anonymous: string;
  private user: string | undefined;

  constructor(
    private readonly store: KeyValueStore,
    private readonly prefix: string,
    private readonly random: RandomSource,
    userId: string | undefined,
  ) {
    this.anonymous = store.getItem(`${prefix}:anonymous_id`) ?? this.newAnonymousId();
    this.user = userId ?? store.getItem(`${prefix}:user_id`) ?? undefined;
  }

  get anonymousId(): string {
    return this.anonymous;
  }

  get userId(): string {
    return this.user ?? this.anonymous;
  }

  /** Switches to `userId`; answers the anonymous id whose history the service should merge into it, if any. */
  identify(userId: string): string | undefined {
    if (userId === this.userId) return undefined;
    const previous = this.user === undefined ? this.anonymous : undefined;
    this.user = userId;
    this.store.setItem(`${this.prefix}:user_id`, userId);
    return previous;
  }

  /** Sign-out: later events belong to a new anonymous visitor. */
  reset(): void {
    this.user = undefined;
    this.store.removeItem(`${this.prefix}:user_id`);
    this.anonymous = this.newAnonymousId();
  }

  private newAnonymousId(): string {
    const id = `anon-${uuid(this.random)}`;
    this.store.setItem(`${this.prefix}:anonymous_id`, id);
    return id;
  }
}
