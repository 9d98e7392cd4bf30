SET 'execution.checkpointing.interval' = '1 h';
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
CREATE TABLE g (k STRING, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'print', 'print-identifier' = 'g');
CREATE TABLE w (k STRING, ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'w');
EXECUTE STATEMENT SET BEGIN
INSERT INTO g SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k;
INSERT INTO w SELECT k, window_start, COUNT(*)
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
END;
