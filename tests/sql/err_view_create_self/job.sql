-- a view's query cannot read the view being created (it does not exist
-- yet when its query is checked)
CREATE TABLE v0 (x INT) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT x FROM v;
