-- A computed column takes its value from its expression: it cannot be
-- listed (Flink neither writes computed columns).
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p (a STRING, b INT, c AS b + 1) WITH ('connector' = 'print');
INSERT INTO p (a, c) SELECT a, n FROM src;
