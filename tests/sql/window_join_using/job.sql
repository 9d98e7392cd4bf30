-- A window join written with USING: the same FULL window join as
-- window_join_tvf_full (Flink's documentation example, with ON L.num =
-- R.num AND both window bounds equal), so the same rows; the unqualified
-- window_start and window_end are the common columns, COALESCE(L.x, R.x)
-- in a FULL join, which that case writes out.
CREATE TABLE LeftTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'left.csv', 'format' = 'csv');
CREATE TABLE RightTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'right.csv', 'format' = 'csv');

SELECT L.num AS L_Num, L.id AS L_Id, R.num AS R_Num, R.id AS R_Id, window_start, window_end
FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) L
FULL JOIN TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) R
USING (num, window_start, window_end);
