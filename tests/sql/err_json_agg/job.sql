-- JSON aggregates are not supported yet: refused naming the function.
SELECT JSON_ARRAYAGG(x) FROM (VALUES (1), (2)) AS t(x);
