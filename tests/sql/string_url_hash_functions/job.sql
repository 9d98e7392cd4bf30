-- Flink's string, URL, encoding and hash functions over columns read from
-- JSON (a plain row, a row with non-ASCII text and a negative number, a row
-- of NULLs). Expected rows derived by hand from Flink's documented rules:
-- OVERLAY keeps the rest after the replaced characters; TRANSLATE drops the
-- characters of fromStr that toStr has no partner for; SUBSTRING_INDEX with
-- a negative count counts from the right, and gives the whole string when
-- the delimiter is not found often enough; ELT is NULL only when the chosen
-- value is; CHR takes the code modulo 256; IS_* are FALSE for NULL;
-- PARSE_URL gives NULL for a missing part and for text that is not a URL;
-- URL_ENCODE writes a space as '+' and other bytes as %XX; STR_TO_MAP gives
-- a key without a value a NULL value; BIN and HEX print a negative number
-- in 64-bit two's complement; digests are lowercase hex of the UTF-8 bytes
-- (MD5/SHA-256 values from Python's hashlib); a character US-ASCII cannot
-- hold decodes as U+FFFD.
CREATE TABLE t (id INT, s STRING, u STRING, n INT, kv STRING)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, OVERLAY(s PLACING 'XY' FROM 2 FOR 3), TRANSLATE(s, 'lo.', 'LO'), SUBSTRING_INDEX(s, '.', 2),
       SUBSTRING_INDEX(s, 'o', -1), ELT(2, s, 'second'), CHR(n + 64), IS_ALPHA(s), IS_DIGIT(CAST(n AS STRING)),
       IS_DECIMAL(CAST(n AS STRING))
FROM t;

SELECT id, PARSE_URL(u, 'HOST'), PARSE_URL(u, 'PATH'), PARSE_URL(u, 'QUERY', 'lang'), PARSE_URL(u, 'REF'),
       PARSE_URL(u, 'USERINFO'), URL_ENCODE(s), URL_DECODE(URL_ENCODE(s))
FROM t;

SELECT id, STR_TO_MAP(kv), STR_TO_MAP(kv, ',', ':'), HEX(n), BIN(n), MD5(s), SHA2(s, 256),
       DECODE(ENCODE(s, 'ISO-8859-1'), 'US-ASCII'), DECODE(ENCODE(s, 'UTF-16'), 'UTF-16')
FROM t;

SELECT TYPEOF(1.5), TYPEOF(CAST(NULL AS BIGINT)), DECODE(UNHEX('466C696E6B'), 'UTF-8'), SHA1(''),
       CHAR_LENGTH(UUID()), UUID() <> UUID();
