-- A Java regex construct PCRE2 cannot express is refused, naming it.
CREATE TABLE e (id INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');
SELECT id, REGEXP_EXTRACT(s, '[a-z&&[^b]]+') FROM e;
