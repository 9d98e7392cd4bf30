-- Window table functions as tables: window assignment without aggregation
-- (window_start, window_end, window_time), TVFs in subqueries and views,
-- the subquery-wrapped window join of Flink's docs (same data, same rows),
-- a window Top-N and a window deduplication over a wrapped TVF, and
-- aggregations of HOP and CUMULATE rows read through a view / subquery
-- (each row counts in its own window only).
CREATE TABLE LeftTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '5' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE RightTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '5' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');

SELECT 'tvf', * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES));

SELECT 'join', L.num as L_Num, L.id as L_Id, R.num as R_Num, R.id as R_Id,
       COALESCE(L.window_start, R.window_start) as window_start,
       COALESCE(L.window_end, R.window_end) as window_end
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L
FULL JOIN (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;

SELECT 'top', window_start, window_end, id, num FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) as rownum
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)))
) WHERE rownum <= 1;

SELECT 'last', window_start, window_end, id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY row_time DESC) AS rn
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)))
) WHERE rn = 1;

CREATE VIEW lw AS SELECT id, num, window_start, window_end
  FROM TABLE(HOP(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES));
SELECT 'hop', window_start, window_end, COUNT(*), MAX(num) FROM lw GROUP BY window_start, window_end;

SELECT 'cum', window_start, window_end, COUNT(*) FROM (
  SELECT id, window_start, window_end
  FROM TABLE(CUMULATE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
) GROUP BY window_start, window_end;
