-- Connectors > DataGen with rows-per-second (unbounded)
-- mode: explain
CREATE TABLE g (id INT, name STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '5', 'fields.name.length' = '8');
SELECT * FROM g;
