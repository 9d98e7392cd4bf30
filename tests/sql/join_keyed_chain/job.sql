-- Keyed operators after joins, on the join key of a side never padded with
-- NULLs: the keyed edge is chained (explain_join_keyed_chain), and each row
-- must still meet its key's state on its key group's subtask, at every
-- parallelism. The check folds each changelog into its table.
CREATE TABLE a (k INT, s INT, x STRING) WITH (
  'connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k INT, s INT, y STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE out_top (k INT, y STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_top', 'format' = 'debezium-json');
CREATE TABLE out_cnt (k INT, n BIGINT, total BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_cnt', 'format' = 'debezium-json');
CREATE TABLE out_rcnt (k INT, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_rcnt', 'format' = 'debezium-json');
CREATE TABLE out_pair (k INT, s INT, m BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_pair', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_top SELECT k, y, v FROM (
    SELECT a.k, b.y, b.v, ROW_NUMBER() OVER (PARTITION BY a.k ORDER BY b.v DESC) AS rn
    FROM a JOIN b ON a.k = b.k) WHERE rn <= 1;
  INSERT INTO out_cnt SELECT a.k, COUNT(b.v), SUM(b.v) FROM a LEFT JOIN b ON a.k = b.k GROUP BY a.k;
  INSERT INTO out_rcnt SELECT b.k, COUNT(a.x) FROM a RIGHT JOIN b ON a.k = b.k GROUP BY b.k;
  INSERT INTO out_pair SELECT a.k, a.s, MAX(b.v) FROM a JOIN b ON a.k = b.k AND a.s = b.s GROUP BY a.k, a.s;
END;
