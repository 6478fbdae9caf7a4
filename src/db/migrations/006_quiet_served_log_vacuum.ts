/**
 * The served log only grows, and PostgreSQL vacuums a table each time a fifth more rows were inserted (to mark
 * its new pages all-visible and freeze them). On the recommend benchmark's 4 GB log such a vacuum took
 * 0.13–0.16 cores for minutes, on the cores that serve, and the fixed-rate p99 of `similar` (-c 50) read
 * 12.5–15.5 ms meanwhile against 10.6–13.6 ms without. Nothing reads this log on a hot path, so its vacuum
 * sleeps five times longer between rounds of work: with a 10 ms delay PostgreSQL used 0.04 cores and the p99
 * read 11.1–12.4 ms.
 */
export const sql = `
ALTER TABLE served_recommendations SET (autovacuum_vacuum_cost_delay = 10);
`;
