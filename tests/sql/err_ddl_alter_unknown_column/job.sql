-- ALTER TABLE ... DROP of a column the table does not have
CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen');
ALTER TABLE t DROP (b, zz);
