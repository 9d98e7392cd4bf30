-- Texts a user writes that go into an operator's digest verbatim: a
-- LISTAGG separator and a column alias. Written so that one query's text
-- reads like another's list of two (a separator holding what the digest
-- puts between two aggregates, an alias holding what it puts between two
-- columns), they once gave the two queries one digest, and the second
-- query printed the first one's values. Each text now stands in the
-- digest with its length.
CREATE TABLE t (id INT, k STRING, g INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE sep_one (a STRING, b STRING) WITH ('connector' = 'print', 'print-identifier' = 'sep_one');
CREATE TABLE sep_two (a STRING, b STRING) WITH ('connector' = 'print', 'print-identifier' = 'sep_two');
CREATE TABLE alias_one (a INT, b INT) WITH ('connector' = 'print', 'print-identifier' = 'alias_one');
CREATE TABLE alias_two (a INT, b INT) WITH ('connector' = 'print', 'print-identifier' = 'alias_two');
EXECUTE STATEMENT SET BEGIN
INSERT INTO sep_one SELECT LISTAGG(k, '-''|LISTAGG(1,0)f-1sep''+'), LISTAGG(k, '/') FROM t GROUP BY g > 100;
INSERT INTO sep_two SELECT LISTAGG(k, '-'), LISTAGG(k, '+''|LISTAGG(1,0)f-1sep''/') FROM t GROUP BY g > 100;
INSERT INTO alias_one SELECT * FROM (SELECT id AS `a|$2:INT AS b`, v AS c FROM t);
INSERT INTO alias_two SELECT * FROM (SELECT id AS a, g AS `b|$3:INT AS c` FROM t);
END;
