-- A regular join's key longer than the 1024 bytes it encodes fails the job and names the limit
-- (the second row's short key would join).
CREATE TABLE a (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (s STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
SELECT a.id, b.v FROM a JOIN b ON a.s = b.s;
