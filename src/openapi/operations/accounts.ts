import { AuditLogSchema, AuditQuerySchema } from "../../accounts/audit.js";
import { KeyPairListSchema, NewKeyPairSchema, RevokedKeyPairSchema } from "../../accounts/keyPairs.js";
import { InvitationSchema, InviteSchema } from "../../accounts/invitations.js";
import { ChangeRoleSchema, MemberListSchema, MemberSchema } from "../../accounts/members.js";
import { ChangePasswordSchema } from "../../accounts/password.js";
import { CurrentAccountSchema } from "../../accounts/registration.js";
import { PairId, UserId } from "../../http/routes/accounts.js";
import { DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

const MEMBER_EXAMPLE = { user_id: EXAMPLE.memberId, email: "dev@example.com", role: "DEVELOPER", created_at: EXAMPLE.at };
const TOKEN_ERRORS = ["invalid_token", ...DATABASE_ERRORS] as const;

export const ACCOUNT_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/me",
    operationId: "getCurrentAccount",
    tag: "Accounts",
    summary: "The account behind the token",
    description: "Any role. The role is read anew on every call, so a changed role shows at once.",
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 200,
      description: "The account and its organisation.",
      message: "current account",
      data: { name: "CurrentAccount", schema: CurrentAccountSchema },
      example: { user: { id: EXAMPLE.userId, email: EXAMPLE.email, role: "OWNER" }, organisation: { id: EXAMPLE.orgId, name: "Acme Shop" } },
    },
    errors: TOKEN_ERRORS,
  },
  {
    method: "post",
    path: "/v1/keys",
    operationId: "generateKeyPair",
    tag: "Keys",
    summary: "Generate a key pair",
    description:
      "OWNER or ADMIN. At most two pairs are active at once (rotation): a third is 409 `conflict` until one is revoked. The secret key appears in this answer only.",
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 201,
      description: "The new pair, with its secret key.",
      message: "key pair generated; store the secret key now, it is not shown again",
      data: { name: "NewKeyPair", schema: NewKeyPairSchema },
      example: { key_pair_id: EXAMPLE.keyPairId, publishable_key: EXAMPLE.publishableKey, secret_key: EXAMPLE.secretKey, created_at: EXAMPLE.at },
    },
    errors: [...TOKEN_ERRORS, "forbidden_role", "conflict"],
  },
  {
    method: "get",
    path: "/v1/keys",
    operationId: "listKeyPairs",
    tag: "Keys",
    summary: "List key pairs",
    description:
      "OWNER, ADMIN and DEVELOPER see publishable keys in full (public by design: the key pages and the SDK carry); secret keys are always masked, their one reveal being the answer of `POST /v1/keys`; MEMBER gets 403. A listing reveals nothing secret and is not audited.",
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 200,
      description: "Every pair of the organisation, newest first.",
      message: "key pairs",
      data: { name: "KeyPairList", schema: KeyPairListSchema },
      example: {
        key_pairs: [
          {
            key_pair_id: EXAMPLE.keyPairId,
            status: "active",
            created_at: EXAMPLE.at,
            revoked_at: null,
            publishable_key: EXAMPLE.publishableKey,
            secret_key: "svc_sk_…eF",
          },
        ],
      },
    },
    errors: [...TOKEN_ERRORS, "forbidden_role"],
  },
  {
    method: "post",
    path: "/v1/keys/{id}/revoke",
    operationId: "revokeKeyPair",
    tag: "Keys",
    summary: "Revoke a key pair",
    description:
      "OWNER or ADMIN. Both keys answer 401 `revoked_api_key` from then on (within a second in every process). Revoking twice is harmless.",
    auth: "bearer",
    pathParams: { id: { schema: PairId, description: "The key pair's `key_pair_id`.", example: EXAMPLE.keyPairId } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The pair is revoked.",
      message: "key pair revoked",
      data: { name: "RevokedKeyPair", schema: RevokedKeyPairSchema },
      example: { key_pair_id: EXAMPLE.keyPairId, status: "revoked", revoked_at: EXAMPLE.at },
    },
    errors: [...TOKEN_ERRORS, "forbidden_role", "not_found"],
  },
  {
    method: "post",
    path: "/v1/members",
    operationId: "inviteMember",
    tag: "Members",
    summary: "Invite a member",
    description:
      "OWNER or ADMIN; only an OWNER may invite an OWNER. Creates no account: a one-time token goes to the email through the " +
      "server's mailer (by default printed to the server log) and the invitee joins with `POST /auth/invitations/accept`. " +
      "The answer is the same whether the email has an account elsewhere or not; an email already a member here is 409 " +
      "`conflict`, as is an organisation with 100 invitations waiting (by default). Inviting an email again replaces its " +
      "earlier invitation. Limited per organisation (30 per 15 minutes by default, then 429 `rate_limited`). Audited as `member.invited`.",
    auth: "bearer",
    body: { kind: "json", schema: { name: "Invite", schema: InviteSchema }, example: { email: "dev@example.com", role: "DEVELOPER" } },
    success: {
      kind: "envelope",
      status: 201,
      description: "The invitation.",
      message: "invitation sent; the member joins on accepting it",
      data: { name: "Invitation", schema: InvitationSchema },
      example: { email: "dev@example.com", role: "DEVELOPER", expires_at: EXAMPLE.at },
    },
    errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "forbidden_role", "conflict", "rate_limited"],
  },
  {
    method: "get",
    path: "/v1/members",
    operationId: "listMembers",
    tag: "Members",
    summary: "List members",
    description: "Any role.",
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 200,
      description: "Every account of the organisation.",
      message: "members",
      data: { name: "MemberList", schema: MemberListSchema },
      example: { members: [MEMBER_EXAMPLE] },
    },
    errors: TOKEN_ERRORS,
  },
  {
    method: "patch",
    path: "/v1/members/{id}",
    operationId: "changeRole",
    tag: "Members",
    summary: "Change a member's role",
    description: "OWNER or ADMIN; only an OWNER grants or removes OWNER. Demoting the last OWNER is 409 `conflict`.",
    auth: "bearer",
    pathParams: { id: { schema: UserId, description: "The member's `user_id`.", example: EXAMPLE.memberId } },
    body: { kind: "json", schema: { name: "ChangeRole", schema: ChangeRoleSchema }, example: { role: "ADMIN" } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The member with its new role.",
      message: "role changed",
      data: { name: "Member", schema: MemberSchema },
      example: { ...MEMBER_EXAMPLE, role: "ADMIN" },
    },
    errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "forbidden_role", "not_found", "conflict"],
  },
  {
    method: "delete",
    path: "/v1/members/{id}",
    operationId: "removeMember",
    tag: "Members",
    summary: "Remove a member",
    description:
      "OWNER or ADMIN; only an OWNER removes an OWNER, and the last OWNER cannot be removed (409 `conflict`). The account is " +
      "deleted and every session of it ends at once, in every process. Audited as `member.removed`.",
    auth: "bearer",
    pathParams: { id: { schema: UserId, description: "The member's `user_id`.", example: EXAMPLE.memberId } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The member as it was before removal.",
      message: "member removed; their sessions have ended",
      data: { name: "Member", schema: MemberSchema },
      example: MEMBER_EXAMPLE,
    },
    errors: [...TOKEN_ERRORS, "forbidden_role", "not_found", "conflict"],
  },
  {
    method: "post",
    path: "/v1/me/password",
    operationId: "changePassword",
    tag: "Accounts",
    summary: "Change your password",
    description:
      "Any role. A wrong `old_password` is 401 `invalid_credentials` and counts as a failed sign-in for the account's email " +
      "(past the limit, 429 `rate_limited`). Every other session of the account ends; the one making this call goes on " +
      "with the same token. Audited as `auth.password_changed`.",
    auth: "bearer",
    body: {
      kind: "json",
      schema: { name: "ChangePassword", schema: ChangePasswordSchema },
      example: { old_password: "correct horse battery", new_password: "a new long passphrase" },
    },
    success: {
      kind: "envelope",
      status: 200,
      description: "The password is changed.",
      message: "password changed; every other session has ended, this one goes on",
      data: null,
      example: null,
    },
    errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "invalid_credentials", "rate_limited"],
  },
  {
    method: "get",
    path: "/v1/audit-log",
    operationId: "listAuditLog",
    tag: "Members",
    summary: "Read the audit log",
    description: "OWNER or ADMIN. Newest first; pass the answer's `next_before` as `before` for the next page.",
    auth: "bearer",
    query: AuditQuerySchema,
    success: {
      kind: "envelope",
      status: 200,
      description: "A page of entries.",
      message: "audit log",
      data: { name: "AuditLog", schema: AuditLogSchema },
      example: {
        entries: [
          {
            id: 42,
            at: EXAMPLE.at,
            actor: { user_id: EXAMPLE.userId, email: EXAMPLE.email },
            action: "key_pair.generated",
            target: EXAMPLE.keyPairId,
            ip: "203.0.113.9",
          },
        ],
        next_before: null,
      },
    },
    errors: [...TOKEN_ERRORS, "validation_error", "forbidden_role"],
  },
];
