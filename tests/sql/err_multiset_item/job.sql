-- A MULTISET has no subscript (Flink neither): refused, naming the type.
CREATE TABLE m (id INT, tags MULTISET<STRING>) WITH ('connector' = 'filesystem', 'path' = 'm.json', 'format' = 'json');
SELECT id, tags['a'] FROM m;
