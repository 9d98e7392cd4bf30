-- JSON holds a MULTISET as an object of element -> count, so its elements
-- must be STRING (Flink's JSON format refuses other key types too).
CREATE TABLE m (id INT, ns MULTISET<INT>) WITH ('connector' = 'filesystem', 'path' = 'm.json', 'format' = 'json');
SELECT id, CARDINALITY(ns) FROM m;
