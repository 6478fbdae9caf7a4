/**
 * The served rows of [$2, $3) for one organisation ($1), found through the primary key's id range ($4, $5), for one
 * scenario or all ($6 null), each joined to whether an event carrying its id was a click or a conversion, counted
 * per scenario and strategy, and per `bucket` (an SQL expression over the served row's `served_at`) when given.
 * The totals' report (analytics.ts) and the series over time (analyticsSeries.ts) both read it.
 */
export function servedOutcomesSql(bucket?: string): string {
  return `
WITH served AS (
  SELECT recommendation_id::text AS rid, strategy, scenario${bucket ? `, ${bucket} AS bucket` : ""}
  FROM served_recommendations
  WHERE org = $1 AND served_at >= $2 AND served_at < $3
    AND recommendation_id >= $4::uuid AND recommendation_id < $5::uuid
    AND ($6::text IS NULL OR scenario = $6)
), outcomes AS (
  SELECT recommendation_id AS rid,
         bool_or(event_family = 'engagement' AND weight > 0) AS clicked,
         bool_or(event_family = 'conversion') AS converted
  FROM events
  -- An event follows the answer it names: only the weeks' partitions received since the period began (a day's slack for clocks).
  WHERE org = $1 AND recommendation_id IN (SELECT rid FROM served) AND received_at >= $2::timestamptz - interval '1 day'
  GROUP BY recommendation_id
)
SELECT ${bucket ? "s.bucket, " : ""}s.scenario, s.strategy, count(*)::int AS served,
       (count(*) FILTER (WHERE o.clicked))::int AS clicks,
       (count(*) FILTER (WHERE o.converted))::int AS conversions
FROM served s LEFT JOIN outcomes o USING (rid)
GROUP BY ${bucket ? "s.bucket, " : ""}s.scenario, s.strategy`;
}
