-- Queries > Window Aggregation over TIMESTAMP_LTZ with table.local-time-zone
-- oracle: VALUES ('2024-01-01 11:00:00', 13)
SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE ltz_src (order_id BIGINT, ms BIGINT, lt AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR lt AS lt) WITH ('connector' = 'datagen', 'number-of-rows' = '13', 'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', 'fields.order_id.end' = '13', 'fields.ms.kind' = 'sequence', 'fields.ms.start' = '1704103200000', 'fields.ms.end' = '1704103200012');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ltz_src, DESCRIPTOR(lt), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
