-- TO_TIMESTAMP_LTZ(text, format, zone) takes its zone as a string literal
-- (weir loads the zone once, when the job is planned), and an unknown zone
-- is a plan-time error, as CONVERT_TZ's.
CREATE TABLE t (s STRING, z STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE o (v TIMESTAMP_LTZ(3)) WITH ('connector' = 'print');
INSERT INTO o SELECT TO_TIMESTAMP_LTZ(s, 'yyyy', z) FROM t;
