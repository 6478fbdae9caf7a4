/**
 * A module of the compiled tree (dist/, which `npm run build` makes before the tests), typed as the source module it is
 * compiled from: for code that must run from the build, such as the recommender pool, which starts its threads from the
 * compiled worker files next to it. `path` is the source's path from the repository's root, as "src/wire/als.ts".
 *
 * The specifier is not a literal, so the type checker does not look for declarations of the compiled JavaScript (the build
 * emits none): the caller names the source module's type instead, with `import type * as M from "../../src/…"`.
 */
export async function fromBuild<M>(path: string): Promise<M> {
  return (await import(new URL(`../../dist/${path.replace(/\.ts$/, ".js")}`, import.meta.url).href)) as M;
}
