-- only in-memory catalogs: another type is refused naming it
CREATE CATALOG hc WITH ('type' = 'hive', 'hive-conf-dir' = '/etc/hive');
