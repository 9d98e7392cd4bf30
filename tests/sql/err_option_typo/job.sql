-- A misspelt required option is named, with the option it stands for,
-- rather than reported as the required option missing.
CREATE TABLE clicks (id BIGINT) WITH ('connector' = 'filesystem', 'pth' = 'in.json', 'format' = 'json');
SELECT id FROM clicks;
