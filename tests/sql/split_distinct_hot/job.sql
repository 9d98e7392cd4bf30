-- Split distinct aggregation over a hot key: ids 1..10000, the key is 0
-- for the even ids (half of all rows) and id MOD 10 for the odd ones
-- (1, 3, 5, 7, 9), v = id MOD 1000. Key 0 sees the even v 0..998: 500
-- distinct, 5000 rows, v summing to 10 * (0 + 2 + ... + 998) = 2495000
-- over the rows and 249500 over the distinct values. Key j sees the v
-- that end in digit j: 100 distinct, 1000 rows; distinct sum
-- j*100 + 10*(0 + 1 + ... + 99) = 100j + 49500, row sum ten times that.
-- The partial aggregation spreads key 0 over the default 1024 buckets.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.exec.mini-batch.enabled' = 'true';
CREATE TABLE src (id BIGINT, k AS CASE WHEN MOD(id, 2) = 0 THEN CAST(0 AS BIGINT) ELSE MOD(id, 10) END,
  v AS MOD(id, 1000))
  WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
        'fields.id.end' = '10000');
CREATE TABLE dst (k BIGINT, c BIGINT, n BIGINT, s BIGINT, sd BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'dst', 'format' = 'debezium-json');
INSERT INTO dst SELECT k, COUNT(DISTINCT v), COUNT(*), SUM(v), SUM(DISTINCT v) FROM src GROUP BY k;
