-- A table whose options its connector refuses is an error where a view
-- over it is read, not where the view is created (the connector makes its
-- source there). The view's columns are then not known: SHOW CREATE VIEW
-- prints it without a column list, never with an empty one.
CREATE TABLE t (id BIGINT, s STRING)
  WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'nosuchformat');
CREATE VIEW v AS SELECT * FROM t;
CREATE VIEW w AS SELECT id FROM v;
SHOW CREATE VIEW w;
