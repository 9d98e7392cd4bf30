-- Reading a PARTITIONED BY filesystem table: the partition columns (dt,
-- hr: declared anywhere among the columns) come from the k=v folders, the
-- others from the CSV files, in the table's order without the partition
-- columns. Folder values are unescaped (dt=a%2Fb%3Dc%25d is 'a/b=c%d'),
-- __DEFAULT_PARTITION__ is NULL, hr is CAST to INT. Files above the
-- partition level (in/top.csv, in/dt=2024-01-02/z.csv) and hidden files
-- (_SUCCESS, .p.csv.inprogress) are not read.
CREATE TABLE src (k STRING, dt STRING, v BIGINT, hr INT)
PARTITIONED BY (dt, hr)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
CREATE TABLE all_rows (k STRING, dt STRING, v BIGINT, hr INT)
WITH ('connector' = 'print', 'print-identifier' = 'all');
CREATE TABLE pruned (k STRING, v BIGINT, hr INT)
WITH ('connector' = 'print', 'print-identifier' = 'pruned');
EXECUTE STATEMENT SET BEGIN
INSERT INTO all_rows SELECT * FROM src;
-- hr > 5 AND dt = '2024-01-01' prune to two folders; v > 1 filters rows.
INSERT INTO pruned SELECT k, v, hr FROM src WHERE hr > 5 AND dt = '2024-01-01' AND v > 1;
END;
