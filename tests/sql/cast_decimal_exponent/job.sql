-- A string read as a DECIMAL with an exponent, as BigDecimal reads it: the
-- exponent's digits to the end (leading zeros and all), a blank or no digit
-- after the e is not a number, an exponent past an int's range or a scale
-- (fraction digits less the exponent) past it is not a number, and digits
-- past the scale round HALF_UP. TRY_CAST gives NULL for what is not a
-- number or does not fit.
SELECT TRY_CAST('1e-99999999999' AS DECIMAL(10, 2)) AS a1,
       TRY_CAST('1e-100000' AS DECIMAL(10, 2)) AS a2,
       TRY_CAST('1E+2' AS DECIMAL(10, 2)) AS a3,
       TRY_CAST('1e 2' AS DECIMAL(10, 2)) AS a4,
       TRY_CAST('12.345e1' AS DECIMAL(10, 2)) AS a5,
       TRY_CAST('0.000e99999' AS DECIMAL(10, 2)) AS a6,
       TRY_CAST('1e2147483648' AS DECIMAL(10, 2)) AS a7,
       TRY_CAST('1e2147483647' AS DECIMAL(10, 2)) AS a8,
       TRY_CAST('5e-2147483648' AS DECIMAL(10, 2)) AS a9,
       TRY_CAST('1e00000000000000000000000000001' AS DECIMAL(10, 2)) AS a10,
       TRY_CAST('1e' AS DECIMAL(10, 2)) AS a11,
       TRY_CAST('1e+' AS DECIMAL(10, 2)) AS a12,
       TRY_CAST('0.005' AS DECIMAL(10, 2)) AS a13,
       TRY_CAST('-0.005' AS DECIMAL(10, 2)) AS a14;
SELECT JSON_VALUE('[1e00000000000000000000000000002]', '$[0]' RETURNING BIGINT DEFAULT -1 ON ERROR) AS j1,
       JSON_VALUE('[1e2147483648]', '$[0]' RETURNING BIGINT DEFAULT -1 ON ERROR) AS j2,
       JSON_VALUE('[0e2147483648]', '$[0]' RETURNING BIGINT DEFAULT -1 ON ERROR) AS j3,
       JSON_VALUE('[100.000000000000000000000000000000000000000000001e-2]', '$[0]' RETURNING BIGINT DEFAULT -1 ON ERROR) AS j4,
       JSON_VALUE('[100.000000000000000000000000000000000000000000000e-2]', '$[0]' RETURNING BIGINT DEFAULT -1 ON ERROR) AS j5;
