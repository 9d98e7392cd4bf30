-- Flink's streaming SQL does not run the MULTISET value constructor: refused by name.
SELECT CARDINALITY(MULTISET[1, 2, 2]);
