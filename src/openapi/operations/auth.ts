import { AcceptInvitationSchema } from "../../accounts/invitations.js";
import { PasswordResetConfirmSchema, PasswordResetRequestSchema } from "../../accounts/password.js";
import { LoginSchema, RegisterSchema, SessionDataSchema } from "../../accounts/registration.js";
import { JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

const SESSION = { name: "Session", schema: SessionDataSchema };
const SESSION_EXAMPLE = {
  token: EXAMPLE.token,
  user: { id: EXAMPLE.userId, email: EXAMPLE.email, role: "OWNER" },
  organisation: { id: EXAMPLE.orgId, name: "Acme Shop" },
};
const LIMITED = "Limited per client IP (10 requests per 15 minutes by default); every answer carries the RateLimit-* headers.";

export const AUTH_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/auth/register",
    operationId: "register",
    tag: "Accounts",
    summary: "Register an organisation and its owner",
    description:
      "Creates the organisation and its OWNER account and signs in: the token is in the answer and in a session cookie. " +
      "An account belongs to one organisation, and an email may have accounts in several: registering with an email that " +
      `has one creates another, answered as for a new email, so the answer never tells whether an email is known. ${LIMITED}`,
    auth: "none",
    rateLimit: "ip",
    body: {
      kind: "json",
      schema: { name: "Register", schema: RegisterSchema },
      example: { email: EXAMPLE.email, password: "correct horse battery", organisation: "Acme Shop" },
    },
    success: {
      kind: "envelope",
      status: 201,
      description: "Registered.",
      message: "organisation registered",
      data: SESSION,
      example: SESSION_EXAMPLE,
      setsCookie: true,
    },
    errors: [...JSON_BODY_ERRORS, "rate_limited", "unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/auth/login",
    operationId: "login",
    tag: "Accounts",
    summary: "Sign in",
    description:
      `Answers a dashboard token for an email and password; a wrong email or password is 401 \`invalid_credentials\` alike. ${LIMITED} ` +
      "For an email with accounts in several organisations, `organisation_id` picks one; without it the password signs in " +
      "to the account it matches that signed in most recently (the accounts of one email cost one password check together). " +
      "Besides, 10 wrong passwords for one email within 15 minutes (by default), from any addresses, make sign-ins for that " +
      "email 429 `rate_limited` until the window ends, whether it has an account or not.",
    auth: "none",
    rateLimit: "ip",
    body: { kind: "json", schema: { name: "Login", schema: LoginSchema }, example: { email: EXAMPLE.email, password: "correct horse battery" } },
    success: {
      kind: "envelope",
      status: 200,
      description: "Signed in.",
      message: "logged in",
      data: SESSION,
      example: SESSION_EXAMPLE,
      setsCookie: true,
    },
    errors: [...JSON_BODY_ERRORS, "invalid_credentials", "rate_limited", "unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/auth/logout",
    operationId: "logout",
    tag: "Accounts",
    summary: "Sign out",
    description:
      "Ends the session of the token (`Authorization: Bearer`) or of the web dashboard's cookie: from then on the token answers " +
      "401 `invalid_token` in every process. Clears the cookie. Without a valid token there is nothing to end and the answer " +
      "is the same. Audited as `auth.logout`.",
    auth: "none",
    success: {
      kind: "envelope",
      status: 200,
      description: "The session has ended and the cookie is cleared.",
      message: "logged out",
      data: null,
      example: null,
      setsCookie: true,
    },
    errors: ["unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/auth/invitations/accept",
    operationId: "acceptInvitation",
    tag: "Accounts",
    summary: "Accept an invitation",
    description:
      "Creates the invited account (the invitation's email and role) with this password and signs it in, as login does. " +
      "An unknown, used or expired token is 401 `invalid_token`. The email may have accounts in other organisations: this " +
      `makes one more, in the inviting organisation. Audited as \`member.joined\`. ${LIMITED}`,
    auth: "none",
    rateLimit: "ip",
    body: {
      kind: "json",
      schema: { name: "AcceptInvitation", schema: AcceptInvitationSchema },
      example: { token: "q3J0b2tlbi1leGFtcGxlLW5vdC1hLXJlYWwtb25l", password: "correct horse battery" },
    },
    success: {
      kind: "envelope",
      status: 201,
      description: "Joined and signed in.",
      message: "invitation accepted; signed in",
      data: SESSION,
      example: { ...SESSION_EXAMPLE, user: { ...SESSION_EXAMPLE.user, role: "DEVELOPER" } },
      setsCookie: true,
    },
    errors: [...JSON_BODY_ERRORS, "invalid_token", "rate_limited", "unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/auth/password-reset",
    operationId: "requestPasswordReset",
    tag: "Accounts",
    summary: "Ask for a password reset",
    description:
      "Always 202 with the same answer, whether the email has an account or not. When it has, a one-time token (valid 30 " +
      "minutes by default, one use) goes to the email through the server's mailer (by default printed to the server log); " +
      `at most one a minute per account. ${LIMITED}`,
    auth: "none",
    rateLimit: "ip",
    body: { kind: "json", schema: { name: "PasswordResetRequest", schema: PasswordResetRequestSchema }, example: { email: EXAMPLE.email } },
    success: {
      kind: "envelope",
      status: 202,
      description: "Asked.",
      message: "if an account has this email, a reset token is on its way to it",
      data: null,
      example: null,
    },
    errors: [...JSON_BODY_ERRORS, "rate_limited", "unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/auth/password-reset/confirm",
    operationId: "confirmPasswordReset",
    tag: "Accounts",
    summary: "Set a new password with a reset token",
    description:
      "Sets the password and uses the token up; every session of the account ends (sign in again). An unknown, used or " +
      `expired token is 401 \`invalid_token\`. Audited as \`auth.password_reset\`. ${LIMITED}`,
    auth: "none",
    rateLimit: "ip",
    body: {
      kind: "json",
      schema: { name: "PasswordResetConfirm", schema: PasswordResetConfirmSchema },
      example: { token: "q3J0b2tlbi1leGFtcGxlLW5vdC1hLXJlYWwtb25l", new_password: "a new long passphrase" },
    },
    success: {
      kind: "envelope",
      status: 200,
      description: "The password is set.",
      message: "password set; every session of the account has ended: sign in again",
      data: null,
      example: null,
    },
    errors: [...JSON_BODY_ERRORS, "invalid_token", "rate_limited", "unavailable", "internal_error"],
  },
];
