-- When the provider last refused to turn Identity Service for GKE on for the cluster (Cluster.Progress
-- .identityServiceRefusedAt): the reconciler asks again only an hour after it, and a restart keeps that.
-- NULL: never refused, or the provider has it on. The reconciler's own column: API writes leave it as stored.
ALTER TABLE clusters ADD COLUMN identity_service_refused_at TIMESTAMP WITH TIME ZONE;
