/**
 * A/B experiments on a scenario (README, Experiments). An experiment's variants are stored whole as JSON: they
 * are written once and only ever read whole. At most one running experiment per scenario: the partial unique
 * index makes two concurrent creations collide (409) instead of both running.
 *
 * Served rows gain the experiment and the variant that shaped them, so attribution by recommendation_id counts
 * per variant. Nullable columns without a default: PostgreSQL adds them without rewriting the table, and rows
 * served outside any experiment pay one null bit each. Only enrolled rows enter the partial index the results
 * read through, so plain serving pays nothing for it.
 */
export const sql = `
CREATE TABLE experiments (
  org         integer NOT NULL,
  id          uuid NOT NULL,
  name        text NOT NULL,
  scenario    text NOT NULL,
  variants    jsonb NOT NULL,
  holdout     double precision NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  text,
  stopped_at  timestamptz,
  PRIMARY KEY (org, id)
);
CREATE UNIQUE INDEX experiments_running ON experiments (org, scenario) WHERE stopped_at IS NULL;

ALTER TABLE served_recommendations ADD COLUMN experiment_id uuid, ADD COLUMN variant text;
CREATE INDEX served_recommendations_experiment ON served_recommendations (org, experiment_id, recommendation_id)
  WHERE experiment_id IS NOT NULL;
`;
