-- The reconciler's bookkeeping between passes (Cluster.Progress). Same portable subset as V1.
-- Progress.failures lives in the existing column attempts and Progress.nextAttemptAt in next_reconcile_at;
-- lease_owner / lease_until (V1) are written only by claim and release, never by insert or update.
ALTER TABLE clusters ADD COLUMN delete_requested_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE clusters ADD COLUMN provider_accepted_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE clusters ADD COLUMN pending_action VARCHAR;
-- the cluster CA as the provider reports it (base64 PEM, a few KB); VARCHAR without a length is unbounded
-- on PostgreSQL and up to 1,000,000 characters on H2
ALTER TABLE clusters ADD COLUMN ca_certificate VARCHAR;
