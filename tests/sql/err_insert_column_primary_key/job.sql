-- A PRIMARY KEY column is NOT NULL: it cannot be left out of the list.
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p (k STRING, b INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO p (b) SELECT n FROM src;
