-- Formats > JSON: writing a nested ROW and ARRAY column
-- output: out
-- oracle: VALUES (1, '{"city": "Oslo", "zip": "0150"}', '["a", "b"]')
CREATE TABLE nested_out (id INT, addr ROW<city STRING, zip STRING>, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO nested_out SELECT id, addr, tags FROM events WHERE id = 1;
