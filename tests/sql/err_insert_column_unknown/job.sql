-- A listed column the table does not have is refused, naming it.
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p (a STRING, b INT) WITH ('connector' = 'print');
INSERT INTO p (a, nn) SELECT a, n FROM src;
