-- A column listed twice is refused at its second mention.
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p (a STRING, b INT) WITH ('connector' = 'print');
INSERT INTO p (b, A, b) SELECT n, a, n FROM src;
