-- Functions > Type Conversion: CAST of an ARRAY to another element type
-- oracle: VALUES ('[1, 2]')
SELECT CAST(ARRAY['1', '2'] AS ARRAY<INT>);
