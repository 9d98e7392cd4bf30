-- CREATE FUNCTION ... USING JAR (weir's form: a C library, LANGUAGE C)
-- oracle: SELECT bid_id, MIN(MAX(price, 3), 6) FROM bids
CREATE FUNCTION clamp AS 'weir_example_clamp' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udf_example.so';
SELECT bid_id, clamp(price, 3, 6) FROM bids;
