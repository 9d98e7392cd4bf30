-- GROUP_ID() numbers the repeats of a grouping set, as Calcite and Flink
-- do: 0 for the first occurrence of a set, 1 for its second, so that the
-- duplicate rows a repeated set gives can be told apart. Expected rows
-- derived by hand: GROUPING SETS ((a), (), (a)) over x, y, x in one window
-- gives x:2 and y:1 with GROUP_ID 0, the total 3 with GROUP_ID 0, and x:2,
-- y:1 again with GROUP_ID 1; without grouping sets GROUP_ID() is 0.
CREATE TABLE t (a STRING, b INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT a, GROUP_ID(), GROUPING(a), COUNT(*), SUM(b)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, GROUPING SETS ((a), (), (a));

SELECT a, GROUP_ID(), COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, a;
