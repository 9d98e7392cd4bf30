-- A CAST between nested types needs every element castable: INT to DATE
-- is not (Flink refuses it too), so the job is refused at plan time.
SELECT CAST(ARRAY[1] AS ARRAY<DATE>);
