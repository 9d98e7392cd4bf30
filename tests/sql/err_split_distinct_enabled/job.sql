-- table.optimizer.distinct-agg.split.enabled takes 'true' or 'false'
-- only, refused at the SET that gives it.
SET 'table.optimizer.distinct-agg.split.enabled' = 'yes please';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '8';
CREATE TABLE t (k STRING, u STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (k STRING, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, COUNT(DISTINCT u) FROM t GROUP BY k;
