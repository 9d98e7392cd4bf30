-- table.optimizer.distinct-agg.split.bucket-num must be a count of buckets
-- from 1 to 1048576: 0 is refused at the SET that gives it.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '0';
CREATE TABLE t (k STRING, u STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (k STRING, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, COUNT(DISTINCT u) FROM t GROUP BY k;
