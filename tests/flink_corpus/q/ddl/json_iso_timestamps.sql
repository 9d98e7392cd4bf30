-- Formats > JSON: json.timestamp-format.standard = 'ISO-8601'
-- oracle: VALUES (1, '2024-01-01 10:00:00.5')
CREATE TABLE iso (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'data/iso.json', 'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601');
SELECT * FROM iso;
