-- Calls that differ only in a string literal's quotes are different subexpressions and different projections: 'a'' ''b' (one argument) is not 'a', 'b' (two), within one SELECT and across two INSERTs over one source (sub-plan reuse).
CREATE TABLE t (s STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE o1 (v STRING) WITH ('connector' = 'print', 'print-identifier' = 'one');
CREATE TABLE o2 (v STRING) WITH ('connector' = 'print', 'print-identifier' = 'two');
INSERT INTO o1 SELECT CONCAT(s, 'a', 'b') FROM t WHERE s <> 'x';
INSERT INTO o2 SELECT CONCAT(s, 'a'' ''b') FROM t WHERE s <> 'x';
CREATE TABLE o3 (one STRING, two STRING) WITH ('connector' = 'print', 'print-identifier' = 'three');
INSERT INTO o3 SELECT UPPER(CONCAT(s, 'a', 'b')), UPPER(CONCAT(s, 'a'' ''b')) FROM t;
