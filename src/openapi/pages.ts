/**
 * The rule for what the API description holds: every route the router knows, except the files a browser
 * loads: the web dashboard's page and files, the SDK's browser build, and the reference page rendered from
 * this description with its stylesheet. A route is such a file when its path is one of these prefixes or lies
 * under one; any other route, JSON or not, must be in the description.
 */
export const PAGE_PREFIXES = ["/dashboard", "/docs", "/sdk"] as const;

export function isPage(pattern: string): boolean {
  return PAGE_PREFIXES.some((p) => pattern === p || pattern.startsWith(`${p}/`));
}
