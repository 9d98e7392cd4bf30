-- datagen with sequences, DISTINCT (insert-only over an insert-only input).
CREATE TABLE gen (id BIGINT, bucket AS id % 3) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
SELECT DISTINCT bucket FROM gen;
