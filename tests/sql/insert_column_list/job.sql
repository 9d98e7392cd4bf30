-- INSERT INTO t (c1, c2, ...): the query's columns go by position to the
-- listed columns, in the list's order (not the table's), each cast to its
-- column's type as in a plain INSERT; a column not listed is NULL. With
-- VALUES (p1 c), with an updating query into a PRIMARY KEY table (p2: the
-- key listed, w left NULL) and with a static partition (f: dt static, h
-- listed as a dynamic partition column, n and note left NULL).
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p1 (a STRING, b INT, c DOUBLE, d STRING) WITH ('connector' = 'print', 'print-identifier' = 'p1');
CREATE TABLE p2 (k STRING NOT NULL, v BIGINT, w STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'print', 'print-identifier' = 'p2');
CREATE TABLE f (a STRING, n INT, dt STRING, h INT, note STRING) PARTITIONED BY (dt, h)
  WITH ('connector' = 'filesystem', 'path' = 'f', 'format' = 'json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO p1 (d, b) SELECT a, n FROM src;
INSERT INTO p1 (c) VALUES (1.5), (2);
INSERT INTO p1 (b, a, c, d) SELECT n, a, n, 'all' FROM src;
INSERT INTO p2 (v, k) SELECT COUNT(*), a FROM src GROUP BY a;
INSERT INTO f PARTITION (dt = '2024-01-03') (h, a) SELECT n + 10, a FROM src;
END;
