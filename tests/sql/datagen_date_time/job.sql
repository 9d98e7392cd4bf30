-- datagen DATE and TIME columns: a DATE sequence (one day a row, across
-- 2020-02-29), a TIME(0) sequence (one second a row; the start's fraction is
-- dropped) and a random TIME(3) between equal bounds. The shortest sequence
-- (t0: 4 values) ends the source.
CREATE TABLE g (id INT, d DATE, t0 TIME(0), t3 TIME(3)) WITH ('connector' = 'datagen',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10',
  'fields.d.kind' = 'sequence', 'fields.d.start' = '2020-02-27', 'fields.d.end' = '2020-03-05',
  'fields.t0.kind' = 'sequence', 'fields.t0.start' = '00:00:58.7', 'fields.t0.end' = '00:01:01',
  'fields.t3.min' = '12:00:00.123', 'fields.t3.max' = '12:00:00.123');
SELECT * FROM g;
