CREATE TABLE a (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv',
  'scan.watermark.alignment.group' = 'g');
SELECT k FROM a;
