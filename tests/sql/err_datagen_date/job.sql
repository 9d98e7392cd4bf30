-- The datagen connector does not generate DATE or TIME values: refused, naming the field and the type.
CREATE TABLE g (id INT, d DATE) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT * FROM g;
