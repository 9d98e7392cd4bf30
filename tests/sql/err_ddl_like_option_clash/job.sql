-- LIKE with INCLUDING OPTIONS: an option of both tables is an error
CREATE TABLE t (a INT) WITH ('connector' = 'datagen');
CREATE TABLE u WITH ('connector' = 'blackhole') LIKE t (INCLUDING OPTIONS);
