-- REPLACE TABLE ... AS needs the table to exist
REPLACE TABLE r WITH ('connector' = 'print') AS SELECT 1 AS x;
