-- Where a cluster's nodes mount a shared volume from (docs/decisions/shared-volumes.md): the file share's NFS server
-- and exported path, saved when the volume is attached; NULL before, and on volumes attached before this was kept
-- (the volume loop reads them from the provider then).
ALTER TABLE shared_volumes ADD COLUMN nfs_server VARCHAR;
ALTER TABLE shared_volumes ADD COLUMN nfs_path VARCHAR;
