-- ALTER TABLE ... MODIFY turns a PRIMARY KEY column into a computed one:
-- refused as a CREATE TABLE with that key is (a key names physical columns)
CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen');
ALTER TABLE t MODIFY id AS 1;
