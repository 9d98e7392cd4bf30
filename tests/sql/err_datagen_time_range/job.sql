-- A TIME sequence past the end of the day is refused, naming the field.
CREATE TABLE g (id INT, t TIME(3)) WITH ('connector' = 'datagen',
  'fields.t.kind' = 'sequence', 'fields.t.start' = '23:59:59', 'fields.t.end' = '86400000');
SELECT * FROM g;
