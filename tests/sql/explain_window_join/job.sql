-- EXPLAIN of window joins: q5's shape (the rows of a window aggregation at
-- their window's MAX), planned as a window Top-1 with ties (WindowTop1Local
-- chained to the aggregation, then WindowRank); the same with a strict >,
-- which stays a cascaded window aggregation and a window join; window
-- table functions joined directly (WindowAssign), and
-- a join on window_start alone, which is not a window join and stays a
-- regular join (Join, its state kept).
CREATE TABLE a (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE o (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
CREATE VIEW ca AS SELECT k, count(*) AS n, window_start AS s, window_end AS e
  FROM TABLE(HOP(TABLE a, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
CREATE VIEW cb AS SELECT k, count(*) AS n, window_start AS s, window_end AS e
  FROM TABLE(HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
EXPLAIN INSERT INTO o SELECT x.k, x.n FROM ca x
  JOIN (SELECT max(n) AS m, s, e FROM ca GROUP BY s, e) y ON x.s = y.s AND x.e = y.e AND x.n >= y.m;
EXPLAIN INSERT INTO o SELECT x.k, x.n FROM ca x
  JOIN (SELECT max(n) AS m, s, e FROM ca GROUP BY s, e) y ON x.s = y.s AND x.e = y.e AND x.n > y.m;
EXPLAIN INSERT INTO o SELECT x.k, y.k FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '5' SECOND)) x
  LEFT JOIN TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '5' SECOND)) y
  ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end;
EXPLAIN INSERT INTO o SELECT x.k, y.n FROM ca x JOIN cb y ON x.k = y.k AND x.s = y.s;
