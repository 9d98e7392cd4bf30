-- IS NOT DISTINCT FROM as a window join's key is refused by name, also
-- where the key's types (BIGINT beside DECIMAL(38, 20)) would make the
-- pair a condition rather than a key.
CREATE TABLE l (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (k DECIMAL(38, 20), ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
SELECT L.k, R.k FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.k IS NOT DISTINCT FROM R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
