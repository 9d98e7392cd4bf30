SET 'execution.checkpointing.interval' = '1 s';
CREATE TABLE t (k STRING, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
CREATE TABLE o (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json',
  'sink.commit-on-checkpoint' = 'false');
INSERT INTO o SELECT k, v FROM t;
