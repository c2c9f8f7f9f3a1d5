-- The normalized create input of a node pool added by kubernetesNodePools.create (its idempotent replay); NULL for pools created with their cluster.
ALTER TABLE node_pools ADD COLUMN request_fingerprint VARCHAR;
