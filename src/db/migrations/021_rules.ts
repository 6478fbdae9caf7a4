/**
 * Merchandising rules (README, Rules): at most RULES_MAX per organisation, each its definition as validated
 * (`definition`, the API's body less name and enabled). `rule_sets.version` is taken from one sequence on every
 * change of an organisation's rules, deletions included: a recommender thread handed two readings of the same
 * organisation (a notice's and a catch-up's) keeps the newer one whatever order they arrive in.
 */
export const sql = `
CREATE SEQUENCE rule_versions;
CREATE TABLE rules (
  id          uuid PRIMARY KEY,
  org         integer NOT NULL,
  name        text NOT NULL,
  enabled     boolean NOT NULL,
  definition  jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rules_org ON rules (org, created_at, id);
CREATE TABLE rule_sets (
  org      integer PRIMARY KEY,
  version  bigint NOT NULL
);
`;
