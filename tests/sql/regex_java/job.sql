-- Regular expressions follow Java's language (as in Flink): leftmost-first
-- alternation, lazy quantifiers, look-around, \b, Unicode properties,
-- character (not byte) positions. Expected rows worked out by hand from
-- java.util.regex's rules.
CREATE TABLE e (id INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');

SELECT
  id,
  REGEXP_EXTRACT(s, 'a|ab') AS first_alt,
  REGEXP_EXTRACT(s, '<(.+?)>', 1) AS lazy,
  REGEXP(s, '\bcat\b') AS word,
  REGEXP_REPLACE(s, '(?<=<)\w', '_') AS behind,
  REGEXP_COUNT(s, '[aeiou]') AS vowels,
  REGEXP_INSTR(s, 'l') AS l_at,
  REGEXP_SUBSTR(s, '\d+(?= USD)') AS ahead,
  s SIMILAR TO '%(cat|dog)%' AS pet,
  REGEXP_EXTRACT(s, '^\p{L}+$') AS letters
FROM e;
