-- COUNT(DISTINCT)s of one column with different FILTERs share one view of
-- the column's values (one map entry per value, holding each aggregate's
-- live occurrences): over an append-only input, and over an updating one
-- (each user's running sum, which moves the user between the FILTER
-- buckets, up and down), where a retraction takes one aggregate's
-- occurrence away while its sharers keep theirs. `check` computes the
-- expected tables from t.csv in python3 and compares the folded changelogs.
CREATE TABLE t (g STRING, u STRING, amt INT)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE appended (g STRING, nu BIGINT, nu_lo BIGINT, nu_hi BIGINT, na BIGINT, na_lo BIGINT, mx INT, n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'appended', 'format' = 'debezium-json');
CREATE TABLE updated (g STRING, nu BIGINT, nu_lo BIGINT, nu_hi BIGINT, nm BIGINT, nm_hi BIGINT, n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'updated', 'format' = 'debezium-json');
CREATE VIEW per_user AS SELECT g, u, SUM(amt) AS m FROM t GROUP BY g, u;
EXECUTE STATEMENT SET BEGIN
INSERT INTO appended SELECT g, count(distinct u), count(distinct u) FILTER (WHERE amt < 5),
    count(distinct u) FILTER (WHERE amt >= 5), count(distinct amt), count(distinct amt) FILTER (WHERE amt < 5),
    max(amt), count(*)
  FROM t GROUP BY g;
INSERT INTO updated SELECT g, count(distinct u), count(distinct u) FILTER (WHERE m < 10),
    count(distinct u) FILTER (WHERE m >= 10), count(distinct m), count(distinct m) FILTER (WHERE m >= 10), count(*)
  FROM per_user GROUP BY g;
END;
