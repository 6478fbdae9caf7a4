/** Served recommendations (attribution), and the lookup of events by the recommendation they came from. */
export const sql = `
CREATE TABLE served_recommendations (
  org               integer NOT NULL,
  recommendation_id uuid NOT NULL,
  strategy          text NOT NULL,
  mode              text NOT NULL,
  user_id           text,
  context_item_id   text,
  items             jsonb NOT NULL,
  served_at         timestamptz NOT NULL,
  PRIMARY KEY (org, recommendation_id)
);
CREATE INDEX served_recommendations_at ON served_recommendations (org, served_at);

-- Only events that carry a recommendation_id enter this index, so plain event ingestion does not pay for it.
CREATE INDEX events_recommendation ON events (org, recommendation_id) WHERE recommendation_id IS NOT NULL;
`;
