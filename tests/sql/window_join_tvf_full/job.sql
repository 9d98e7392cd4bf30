-- The FULL OUTER window join of Flink's window-join page, written with the
-- two window TVFs joined directly (the subqueries of Flink's text dropped). Each row is judged late or on time
-- against the watermark of its own input, so the answer is the same at
-- every batch size and parallelism, whichever input ends first (the right
-- one is shorter). L3 (12:03) comes after L2 (12:06): the left watermark
-- is then 12:05:59, past the end of L3's window [12:00, 12:05), so L3 is
-- late and dropped, and R3 is unmatched. (Flink's page shows L3 joined with
-- R3: its watermarks are emitted every 200 ms, so in a tiny file nothing
-- is late; weir's watermark takes effect after every record.)
-- test_two_input_determinism.sh runs this case at batch sizes 1, 7, 1024.
CREATE TABLE LeftTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'left.csv', 'format' = 'csv');
CREATE TABLE RightTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'right.csv', 'format' = 'csv');

SELECT L.num AS L_Num, L.id AS L_Id, R.num AS R_Num, R.id AS R_Id,
       COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) L
FULL JOIN TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
