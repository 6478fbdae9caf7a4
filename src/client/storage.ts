/** The part of the Web Storage API the client uses: `localStorage` in a browser, a Map elsewhere. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  /** Enumeration, as Web Storage has it: the client finds other tabs' queues by it; a store without it holds one client's. */
  readonly length?: number;
  key?(index: number): string | null;
}

/** The page's localStorage, or undefined where there is none or it refuses use (Node, some private modes, sandboxed frames). */
export function browserStorage(): KeyValueStore | undefined {
  try {
    const s = (globalThis as { localStorage?: KeyValueStore }).localStorage;
    s?.getItem("recsvc:probe");
    return s;
  } catch {
    return undefined;
  }
}

export class MemoryStore implements KeyValueStore {
  private readonly map = new Map<string, string>();
  getItem(key: string): string | null {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.map.set(key, value);
  }
  removeItem(key: string): void {
    this.map.delete(key);
  }
  get length(): number {
    return this.map.size;
  }
  key(index: number): string | null {
    return [...this.map.keys()][index] ?? null;
  }
}

/** The store's keys that start with `prefix` (none when the store cannot enumerate), listed before any is removed. */
export function keysWithPrefix(store: KeyValueStore, prefix: string): string[] {
  const keys: string[] = [];
  for (let i = 0; store.key && i < (store.length ?? 0); i++) {
    const key = store.key(i);
    if (key?.startsWith(prefix)) keys.push(key);
  }
  return keys;
}

/** Reads a JSON value written by this client; anything else (another script's value, a torn write) reads as absent. */
export function readJson<T>(store: KeyValueStore, key: string, valid: (v: unknown) => v is T): T | undefined {
  try {
    const v: unknown = JSON.parse(store.getItem(key) ?? "null");
    return valid(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
