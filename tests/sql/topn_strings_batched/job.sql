-- Top-N and deduplication rows with string columns (NULL, empty, up to 40
-- characters) emitted from input batches of 16 rows: the strings of the
-- rows a batch emits lie close together in its heap and are copied into
-- the output in one piece, or - when only a few rows far apart come out
-- (a Top-2 of low values late in the input) - one by one; both must give
-- each row its own strings.
SET 'weir.batch-size' = '16';
CREATE TABLE t (k STRING, v INT, s STRING, u STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv', 'csv.null-literal' = 'N');
SELECT 'top3', * FROM (SELECT k, v, s, u, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 3;
SELECT 'low2', k, v, s, u FROM (SELECT k, v, s, u, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM t) WHERE rn <= 2;
SELECT 'last', k, v, s, u FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1;
SELECT 'first', k, v, s, u FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM t) WHERE rn = 1;
