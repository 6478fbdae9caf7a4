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
    description: `Creates the organisation and its OWNER account and signs in: the token is in the answer and in a session cookie. ${LIMITED}`,
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
    errors: [...JSON_BODY_ERRORS, "conflict", "rate_limited", "unavailable", "internal_error"],
  },
  {
    method: "post",
    path: "/auth/login",
    operationId: "login",
    tag: "Accounts",
    summary: "Sign in",
    description: `Answers a dashboard token for an email and password; a wrong email or password is 401 \`invalid_credentials\` alike. ${LIMITED}`,
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
    summary: "Sign out of the web dashboard",
    description: "Clears the web dashboard's session cookie. Tokens themselves are not revoked: they expire.",
    auth: "none",
    success: {
      kind: "envelope",
      status: 200,
      description: "The cookie is cleared.",
      message: "logged out",
      data: null,
      example: null,
      setsCookie: true,
    },
    errors: ["internal_error"],
  },
];
