-- Written by hand: Atlas's open-source build does not manage extensions.
-- pg_trgm is a trusted extension (PostgreSQL 13 and later): the database's
-- owner may create it. The next file's search indexes need its operator
-- class gin_trgm_ops.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
