-- Split distinct aggregation (table.optimizer.distinct-agg.split.enabled)
-- with 4 buckets: each GROUP BY runs as a partial aggregation by key and
-- bucket of the distinct argument and a final one that adds up (or takes
-- the extreme of) the partial results. The final rows are the unsplit
-- aggregation's; the changelog on the way is not (so the check folds it).
--   per_group: two distinct arguments (u and v), so every row is expanded
--     into one copy per argument; COUNT(DISTINCT u) skips the NULL u of a,
--     FILTER (WHERE v > 2) keeps a's (x, 3) and (NULL, 4): one u; c has
--     no v > 2: 0. a: u {x, y}, 5 rows, SUM(v) 1+2+3+4 = 10, MIN 1,
--     MAX 4, SUM(DISTINCT v) 10; b: z twice, SUM 10 but SUM(DISTINCT) 5.
--   overall: no GROUP BY keys: u {x, y, z}, v {1, 2, 3, 4, 5}.
--   over_max: over an updating input (each (g, u)'s MAX(v) rises as rows
--     come: a/x 1 then 3): a's maxima {3, 2, 4} (x, y, NULL u), b {5},
--     c {2}; the final aggregation's MAX retracts.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '4';
CREATE TABLE t (g STRING, u STRING, v INT)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE per_group (g STRING, cu BIGINT, n BIGINT, s BIGINT, mi INT, ma INT, sd BIGINT, cf BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'per_group', 'format' = 'debezium-json');
CREATE TABLE overall (cu BIGINT, cv BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'overall', 'format' = 'debezium-json');
CREATE TABLE over_max (g STRING, c BIGINT, sd BIGINT, ma INT, n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'over_max', 'format' = 'debezium-json');
CREATE VIEW per_user AS SELECT g, u, MAX(v) AS m FROM t GROUP BY g, u;
EXECUTE STATEMENT SET BEGIN
INSERT INTO per_group
SELECT g, COUNT(DISTINCT u), COUNT(*), SUM(v), MIN(v), MAX(v), SUM(DISTINCT v), COUNT(DISTINCT u) FILTER (WHERE v > 2)
FROM t GROUP BY g;
INSERT INTO overall SELECT COUNT(DISTINCT u), COUNT(DISTINCT v) FROM t;
INSERT INTO over_max SELECT g, COUNT(DISTINCT m), SUM(DISTINCT m), MAX(m), COUNT(*) FROM per_user GROUP BY g;
END;
