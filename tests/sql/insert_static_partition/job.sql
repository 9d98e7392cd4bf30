-- INSERT ... PARTITION (k = 'v'): a static partition column takes its
-- literal (cast to the column's type) and the query gives the other
-- columns in the table's order, as in Flink: all of them (out1), or the
-- dynamic partition column too (out2: dt static, h from the rows). The
-- files of a partition hold the other columns only.
CREATE TABLE src (a STRING, h INT, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out1 (a STRING, dt STRING, h INT, n INT) PARTITIONED BY (dt, h)
  WITH ('connector' = 'filesystem', 'path' = 'out1', 'format' = 'json');
CREATE TABLE out2 (a STRING, n INT, dt STRING, h INT) PARTITIONED BY (dt, h)
  WITH ('connector' = 'filesystem', 'path' = 'out2', 'format' = 'json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out1 PARTITION (dt = '2024-01-01', h = '7') SELECT a, n FROM src;
INSERT INTO out2 PARTITION (dt = '2024-01-02') SELECT a, n, h FROM src;
END;
