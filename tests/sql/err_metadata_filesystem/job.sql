-- An unknown filesystem metadata key: refused at the column, with the
-- keys there are.
CREATE TABLE t (
  id BIGINT, s STRING,
  fpath STRING NOT NULL METADATA FROM 'file.paths' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
SELECT id, fpath FROM t;
