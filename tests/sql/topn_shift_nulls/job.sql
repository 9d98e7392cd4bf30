-- Top-N and deduplication rows that carry NULLs, emitted twice: with the
-- rank number each row a new one shifts comes out as -U at its old rank
-- and +U at the next, and a deduplication's -U repeats the row it replaces.
-- The repeated row is the one emitted just before (in the same output
-- batch), a row of the input batch, or one read back from state (batches
-- of 2 rows mix the three); its NULLs (string and integer columns) and its
-- values must come out as they went in.
SET 'weir.batch-size' = '2';
CREATE TABLE t (k STRING, v INT, s STRING, n BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv', 'csv.null-literal' = 'N');
SELECT 'top3', * FROM (SELECT k, v, s, n, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 3;
SELECT 'top2', k, v, s, n FROM (SELECT k, v, s, n, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2;
SELECT 'last', k, v, s, n FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1;
