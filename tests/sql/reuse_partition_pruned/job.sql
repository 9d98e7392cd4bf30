-- A partitioned table read twice in one job: once with a WHERE that
-- prunes its partitions, once whole. The pruned read's source is a
-- source of fewer files, so the two are different sources: the whole
-- read must not reuse the pruned one (it once did, and printed only the
-- rows of dt = 'a'), nor the reverse. Two reads with the same pruning are
-- one source.
CREATE TABLE src (k STRING, v BIGINT, dt STRING) PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
CREATE TABLE pruned (k STRING, dt STRING) WITH ('connector' = 'print', 'print-identifier' = 'pruned');
CREATE TABLE whole (k STRING, dt STRING) WITH ('connector' = 'print', 'print-identifier' = 'whole');
CREATE TABLE pruned_again (k STRING, v BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'pruned_again');
CREATE TABLE other (k STRING, dt STRING) WITH ('connector' = 'print', 'print-identifier' = 'other');
EXECUTE STATEMENT SET BEGIN
INSERT INTO pruned SELECT k, dt FROM src WHERE dt = 'a';
INSERT INTO whole SELECT k, dt FROM src;
INSERT INTO pruned_again SELECT k, v FROM src WHERE dt = 'a' AND v > 1;
INSERT INTO other SELECT k, dt FROM src WHERE dt <> 'a';
END;
