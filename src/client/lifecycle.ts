/** What the client does as its page changes; every hook is called in browsers only. */
export interface LifecycleHooks {
  /** The page is hidden (tab switched, app backgrounded): it may never be shown again. */
  hidden(): void;
  /** The page is left (pagehide): closed, navigated away from, or put in the back-forward cache. */
  left(): void;
  /** The page is shown again from the back-forward cache. */
  back(): void;
  /** Another page of the site wrote `key` in localStorage (`value` null: removed it). */
  stored(key: string, value: string | null): void;
}

/** Listens for the page's lifecycle and other tabs' storage writes; answers how to stop listening. */
export function watchLifecycle(hooks: LifecycleHooks): () => void {
  const doc = (globalThis as { document?: Document }).document;
  if (doc === undefined || typeof globalThis.addEventListener !== "function") return () => undefined;
  const onVisibility = () => {
    if (doc.visibilityState === "hidden") hooks.hidden();
  };
  const onHide = () => hooks.left();
  const onShow = (e: PageTransitionEvent) => {
    if (e.persisted) hooks.back();
  };
  const onStorage = (e: StorageEvent) => {
    if (e.key !== null) hooks.stored(e.key, e.newValue);
  };
  doc.addEventListener("visibilitychange", onVisibility);
  globalThis.addEventListener("pagehide", onHide);
  globalThis.addEventListener("pageshow", onShow);
  globalThis.addEventListener("storage", onStorage);
  return () => {
    doc.removeEventListener("visibilitychange", onVisibility);
    globalThis.removeEventListener("pagehide", onHide);
    globalThis.removeEventListener("pageshow", onShow);
    globalThis.removeEventListener("storage", onStorage);
  };
}
