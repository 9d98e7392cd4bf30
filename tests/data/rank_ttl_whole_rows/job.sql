-- A Top-1 per id % 2 (the smallest id) whose kept rows live 1 h after
-- their last write (table.exec.state.ttl). The fixture beside it is a
-- checkpoint of this job written by a weir that kept every Top-N row
-- whole (before "rank rows: 2"; make.sh); test_sql_proctime restores it on
-- a manual clock and sees that each kept row expires 1 h after it was
-- written, not 1 h after the restore re-encoded it.
SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE src (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'rows-per-second' = '10', 'scan.parallelism' = '1',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '999');
SELECT k, id FROM (
  SELECT id % 2 AS k, id, ROW_NUMBER() OVER (PARTITION BY id % 2 ORDER BY id) AS rn FROM src) WHERE rn = 1;
