-- JSON_OBJECTAGG([KEY] k VALUE v [NULL|ABSENT ON NULL]) in a tumbling
-- window, with FILTER and a JSON_OBJECT value, and in a GROUP BY over an
-- updating input. Expected rows derived by hand from Flink's rules: NULL ON
-- NULL is the default (a NULL value is written as null), ABSENT ON NULL
-- leaves the key out, a JSON_OBJECT(...) value goes in as JSON, keys are
-- escaped as JSON strings; weir writes the keys in ascending order ("a b" <
-- "b" < "z"). Over the updating input a retraction takes its entry out
-- again: user z's entry changes from 1 to 7 when its MAX changes
-- (+I {"z":1}; the retraction empties the group: -D {"z":1}, +I {"z":7}).
CREATE TABLE t (k STRING, u STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT k, window_start, JSON_OBJECTAGG(KEY u VALUE v), JSON_OBJECTAGG(u VALUE v ABSENT ON NULL),
       JSON_OBJECTAGG(KEY u VALUE JSON_OBJECT(KEY 'x' VALUE v)) FILTER (WHERE v > 1)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT k, JSON_OBJECTAGG(KEY u VALUE m ABSENT ON NULL)
FROM (SELECT k, u, MAX(v) AS m FROM t WHERE u = 'z' GROUP BY k, u)
GROUP BY k;
