-- Formats > CSV: field delimiter and ignore-parse-errors
-- oracle: VALUES ('a', 1), ('c', 3)
CREATE TABLE semi (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'data/semi.csv', 'format' = 'csv', 'csv.field-delimiter' = ';', 'csv.ignore-parse-errors' = 'true');
SELECT * FROM semi WHERE v IS NOT NULL;
