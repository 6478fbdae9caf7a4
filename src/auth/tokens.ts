import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { appError } from "../errors.js";
import { RoleSchema } from "./roles.js";

export const TOKEN_ISSUER = "recsvc";
export const TOKEN_LIFETIME_S = 12 * 60 * 60;
const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

const ClaimsSchema = z.object({
  sub: z.string().uuid(),
  org: z.string().uuid(),
  role: RoleSchema,
  /** The session's id: its row in `sessions` must still exist for the token to work (logout deletes it). */
  sid: z.string().uuid(),
  iss: z.literal(TOKEN_ISSUER),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type Claims = z.infer<typeof ClaimsSchema>;

const INVALID = () => appError("invalid_token", "bearer");

/** Dashboard tokens: HS256 JWTs; verification pins the algorithm, the issuer and the expiry. */
export class TokenSigner {
  constructor(private readonly secret: string) {}

  sign(subject: { userId: string; orgId: string; role: Claims["role"]; sessionId: string }, now = Date.now()): string {
    const iat = Math.floor(now / 1000);
    const claims: Claims = {
      sub: subject.userId,
      org: subject.orgId,
      role: subject.role,
      sid: subject.sessionId,
      iss: TOKEN_ISSUER,
      iat,
      exp: iat + TOKEN_LIFETIME_S,
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    return `${HEADER}.${payload}.${this.mac(`${HEADER}.${payload}`)}`;
  }

  verify(token: string, now = Date.now()): Claims {
    const parts = token.split(".");
    if (parts.length !== 3) throw INVALID();
    const [header, payload, signature] = parts;
    if (header !== HEADER) throw INVALID(); // pins alg=HS256: no "none", no key confusion
    const expected = Buffer.from(this.mac(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw INVALID();
    let claims: Claims;
    try {
      claims = ClaimsSchema.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
    } catch {
      throw INVALID();
    }
    if (claims.exp <= Math.floor(now / 1000)) throw INVALID();
    return claims;
  }

  private mac(input: string): string {
    return createHmac("sha256", this.secret).update(input).digest("base64url");
  }
}

export function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (!match) throw appError("invalid_token", "bearerMissing");
  return match[1];
}
