-- json.fail-on-missing-field holds inside a nested ROW too, as in Flink
-- (its nested ROW is read by the converter of the top level): the job
-- fails at the closing brace of the object that lacks the field. It read
-- the missing member as NULL.
CREATE TABLE ev (id INT, r ROW<a INT, b STRING>)
WITH ('connector' = 'filesystem', 'path' = 'ev.json', 'format' = 'json',
      'json.fail-on-missing-field' = 'true');
SELECT id, r.a, r.b FROM ev;
