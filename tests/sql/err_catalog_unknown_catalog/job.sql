-- a three-part name whose catalog does not exist
CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
SELECT * FROM mme.`default`.t;
