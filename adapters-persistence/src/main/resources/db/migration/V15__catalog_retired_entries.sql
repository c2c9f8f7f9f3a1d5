-- A catalog load makes the stored catalog the file's. Entries clusters may point at (providers, accounts,
-- pools, tenants, projects, networks) are not deleted when the file stops naming them: they are kept,
-- retired, so no cluster's reference dangles and the reconciler still reaches the provider. Nothing new is
-- created on a retired entry. Loading a file that names it again makes it current again.
ALTER TABLE providers ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE accounts ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE pools ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE tenants ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE networks ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE;
-- a load removes the ownership rows of principals it no longer names (role_bindings' key starts with principal_id)
CREATE INDEX cluster_owners_principal ON cluster_owners (principal_id);
