-- LISTAGG over an updating input: a retraction takes out the oldest equal
-- value (as Flink's retracting LISTAGG), an update appends the new one.
-- Parallelism 1 only: at higher parallelism the users' changes reach the
-- outer aggregation interleaved in another order, and LISTAGG follows the
-- order they arrive in.
CREATE TABLE t (g STRING, u STRING, amt INT)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE VIEW per_user AS SELECT g, u, MAX(amt) AS m FROM t GROUP BY g, u;
SELECT g, LISTAGG(CAST(m AS STRING)) AS l, LISTAGG(u, '|') AS us FROM per_user GROUP BY g;
