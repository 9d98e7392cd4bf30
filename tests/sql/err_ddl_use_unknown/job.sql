-- USE of a database weir does not have
USE shop;
