/**
 * Accounts that can be secured (issue 34).
 * - `sessions`: one row per signed-in dashboard token (its `sid` claim). Every dashboard request reads its row with
 *   the account's, so a logout, a password change or a removed member ends the session in every process at once.
 *   Rows leave with their account (CASCADE) and, once expired, at the account's next sign-in.
 * - `login_failures`: wrong passwords per email (a digest, so unknown emails are throttled alike and no address is
 *   kept in clear) within the current window, counted in the database so that every process sees the same count.
 * - `account_tokens`: one-time tokens (password reset, invitations), stored as SHA-256 digests, single use, short-lived.
 */
export const sql = `
CREATE TABLE sessions (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id, created_at DESC);

CREATE TABLE login_failures (
  email_digest  bytea PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  failures      integer NOT NULL
);
CREATE INDEX login_failures_window ON login_failures (window_start);

CREATE TABLE account_tokens (
  digest      bytea PRIMARY KEY,
  purpose     text NOT NULL CHECK (purpose IN ('password_reset', 'invitation')),
  account_id  uuid REFERENCES accounts(id) ON DELETE CASCADE,
  org_id      uuid REFERENCES organisations(id),
  email       text NOT NULL,
  role        text CHECK (role IN ('OWNER','ADMIN','DEVELOPER','MEMBER')),
  created_by  uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX account_tokens_expiry ON account_tokens (expires_at);
CREATE INDEX account_tokens_org ON account_tokens (org_id, purpose) WHERE org_id IS NOT NULL;
`;
