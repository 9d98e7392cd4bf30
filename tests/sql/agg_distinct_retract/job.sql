-- SUM/AVG/COUNT(DISTINCT m) over an updating input: each user's maximum
-- changes as rows arrive, and the outer aggregation counts the live
-- occurrences of every distinct value, as Flink does: when u1 moves from
-- 5 to 7, 5 stays (u2 still has it); when u2 follows, 5 goes.
CREATE TABLE t (g STRING, u STRING, amt INT)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE per_group (g STRING, s BIGINT, av INT, c BIGINT, sa BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'per_group', 'format' = 'debezium-json');
CREATE TABLE overall (s BIGINT, c BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'overall', 'format' = 'debezium-json');
CREATE VIEW per_user AS SELECT g, u, MAX(amt) AS m FROM t GROUP BY g, u;
EXECUTE STATEMENT SET BEGIN
INSERT INTO per_group SELECT g, SUM(DISTINCT m), AVG(DISTINCT m), COUNT(DISTINCT m), SUM(m) FROM per_user GROUP BY g;
INSERT INTO overall SELECT SUM(DISTINCT m), COUNT(DISTINCT m) FROM per_user;
END;
