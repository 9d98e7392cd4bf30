-- LISTAGG of empty strings with an empty separator over an updating input:
-- the joined string is empty and was never allocated; retracting one of
-- its values must cut nothing out of it (the sanitizer build failed the
-- job: a NULL pointer given to memmove). '' joins as '' with '|' too.
CREATE TABLE t (id INT, k STRING, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'debezium-json');
SELECT k, LISTAGG(s, ''), LISTAGG(s, '|'), COUNT(s) FROM t GROUP BY k;
