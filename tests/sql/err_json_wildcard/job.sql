-- A JSON path wildcard (not supported yet) is refused when the job is planned,
-- naming it, rather than giving NULL rows.
SELECT JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c') AS q;
