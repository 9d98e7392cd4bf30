-- A DOUBLE key meets a BIGINT column as doubles, which values past 2^53
-- share; a table queried by key (jdbc) compares in the database, by the
-- column's type, so such a key is refused at plan time (no server needed),
-- asking for a CAST of the key to the column's type.
CREATE TABLE dim (k BIGINT, name STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'dim');
CREATE TABLE s (id INT, f DOUBLE, p AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
CREATE TABLE o (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT s.id, d.name FROM s JOIN dim FOR SYSTEM_TIME AS OF s.p AS d ON s.f = d.k;
