-- A deduplication keeps its input's time attribute, but its output is a
-- changelog (an earlier row arriving late replaces the kept one), which a
-- window table function refuses by that name.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE VIEW firsts AS SELECT k, v, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM src) WHERE rn = 1;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE firsts, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
