-- JSON_QUERY writes numbers as JSON_VALUE gives them (integers as written, others as Java prints a double), and a number past a double's range as the string "Infinity": the result stays JSON.
SELECT JSON_QUERY('[1e400, 1.5, 1e2, -0.0, 12345678901234567890123, 0.1e-400]', '$') AS q1,
       JSON_QUERY('{"a": 1E+2}', '$.a' WITH WRAPPER) AS q2,
       JSON_VALUE('[1e400]', '$[0]') AS v1,
       JSON_VALUE('[12345678901234567890123]', '$[0]') AS v2,
       JSON_VALUE('[1.10]', '$[0]') AS v3;
