/**
 * An account belongs to one organisation and its email is unique there, not across organisations: registering
 * with an email that has an account elsewhere creates a second account, so registration never tells anyone which
 * emails exist, and an invitation can be accepted by someone who already works with another organisation.
 * Sign-in looks the email's accounts up (`accounts_email`); the accounts of one email share their scrypt salt
 * (src/auth/passwords.ts), so checking a password against all of them costs one hash.
 */
export const sql = `
ALTER TABLE accounts DROP CONSTRAINT accounts_email_key;
ALTER TABLE accounts ADD CONSTRAINT accounts_org_email UNIQUE (org_id, email);
CREATE INDEX accounts_email ON accounts (email, created_at DESC);
ALTER TABLE accounts ADD COLUMN signed_in_at timestamptz;
`;
