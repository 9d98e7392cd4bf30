-- Functions > Aggregate: STDDEV_POP, STDDEV_SAMP, VAR_SAMP
-- oracle: VALUES (2.5, 1.581139, 1.414214)
SELECT VAR_SAMP(x), STDDEV_SAMP(x), STDDEV_POP(x) FROM (VALUES (1.0), (2.0), (3.0), (4.0), (5.0)) AS t(x);
