import { TOKEN_LIFETIME_S } from "./tokens.js";

/**
 * The web dashboard's session: the dashboard token in a cookie scripts cannot read (HttpOnly) and other sites
 * cannot make the browser send (SameSite=Strict). API scripts keep using Authorization: Bearer.
 */
export const SESSION_COOKIE = "recsvc_session";

export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${TOKEN_LIFETIME_S}${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;
}

/** The session token in a Cookie header, if there is one. */
export function cookieToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** True when an Origin header names the host the request was sent to (a page of this server). */
export function isSameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}
