-- A METADATA column its connector lacks cannot exist: a view that reads
-- the table is refused where it is created (as Flink does), naming the
-- column and the keys there are; it never records a view without columns.
CREATE TABLE t (
  id BIGINT, s STRING,
  m STRING METADATA FROM 'nosuchkey' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE VIEW v AS SELECT id, s FROM t;
SHOW CREATE VIEW v;
