-- METADATA columns of the filesystem source (file.path, file.name,
-- file.size, file.modification-time) for a folder read recursively (the
-- hidden in/_c.csv is not read), JSON, a debezium-json changelog (both rows
-- of an update), a partitioned table, and one file read in byte ranges
-- (source.split-size: every range reports the whole file). file.path is
-- absolute; the part below this test's folder is printed. The metadata
-- columns sit among the data columns, and one declared column is not read.
CREATE TABLE dir_csv (
  id BIGINT,
  fname STRING NOT NULL METADATA FROM 'file.name' VIRTUAL,
  s STRING,
  fpath STRING NOT NULL METADATA FROM 'file.path' VIRTUAL,
  fsize BIGINT NOT NULL METADATA FROM 'file.size' VIRTUAL,
  mtime TIMESTAMP_LTZ(3) NOT NULL METADATA FROM 'file.modification-time' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
CREATE TABLE one_json (
  id BIGINT, s STRING,
  `file.name` STRING NOT NULL METADATA VIRTUAL,
  `file.size` BIGINT NOT NULL METADATA VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = 'j/e.json', 'format' = 'json');
CREATE TABLE cdc (
  fsize BIGINT METADATA FROM 'file.size',
  id BIGINT, s STRING,
  fname STRING METADATA FROM 'file.name'
) WITH ('connector' = 'filesystem', 'path' = 'dbz', 'format' = 'debezium-json');
CREATE TABLE parts (
  id BIGINT, s STRING, dt STRING,
  fpath STRING NOT NULL METADATA FROM 'file.path' VIRTUAL,
  fsize BIGINT NOT NULL METADATA FROM 'file.size' VIRTUAL
) PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = 'part', 'format' = 'csv');
CREATE TABLE ranges (
  id BIGINT, s STRING,
  fname STRING NOT NULL METADATA FROM 'file.name' VIRTUAL,
  fsize BIGINT NOT NULL METADATA FROM 'file.size' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv',
        'source.split-size' = '16');
CREATE TABLE out_dir (id BIGINT, s STRING, rel STRING, fname STRING, fsize BIGINT, recent BOOLEAN, abs BOOLEAN)
  WITH ('connector' = 'print', 'print-identifier' = 'dir');
CREATE TABLE out_json (id BIGINT, s STRING, fname STRING, fsize BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'json');
CREATE TABLE out_cdc (id BIGINT, s STRING, fname STRING, fsize BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'cdc');
CREATE TABLE out_parts (id BIGINT, s STRING, dt STRING, rel STRING, fsize BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'parts');
CREATE TABLE out_ranges (id BIGINT, s STRING, fname STRING, fsize BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'ranges');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out_dir SELECT id, s, SUBSTRING(fpath FROM POSITION('/metadata_files/' IN fpath) + 16), fname, fsize,
  mtime > TO_TIMESTAMP_LTZ(1577836800000, 3), fpath LIKE '/%' FROM dir_csv;
INSERT INTO out_json SELECT id, s, `file.name`, `file.size` FROM one_json;
INSERT INTO out_cdc SELECT id, s, fname, fsize FROM cdc;
INSERT INTO out_parts SELECT id, s, dt, SUBSTRING(fpath FROM POSITION('/metadata_files/' IN fpath) + 16), fsize FROM parts;
INSERT INTO out_ranges SELECT id, s, fname, fsize FROM ranges WHERE id > 11;
END;
