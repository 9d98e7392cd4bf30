-- Functions > Arithmetic: RAND, RAND_INTEGER (range checked)
-- oracle: VALUES (1, 1)
SELECT RAND() >= 0 AND RAND() < 1, RAND_INTEGER(10) BETWEEN 0 AND 9;
