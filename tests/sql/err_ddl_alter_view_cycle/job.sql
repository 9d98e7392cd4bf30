-- ALTER VIEW v AS a query that reads v through another view: refused at the
-- ALTER (the view's query is planned where it is written)
CREATE TABLE t (x INT) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT x FROM t;
CREATE VIEW w AS SELECT x FROM v;
ALTER VIEW v AS SELECT x FROM w;
