-- Shared volumes (docs/decisions/shared-volumes.md): one per cluster at most, its id derived from the cluster's, so a
-- reconcile pass replayed after a crash finds the row it wrote. meter_* is the billing integral in progress (NULL before
-- the first sample and after a delete was accepted); pending_action/pending_operation are the intent saved before each
-- provider call, as for clusters.
CREATE TABLE shared_volumes (
    id                   VARCHAR PRIMARY KEY,
    tenant_id            VARCHAR NOT NULL,
    cluster_id           VARCHAR NOT NULL,
    cluster_name         VARCHAR NOT NULL,
    provider_account_id  VARCHAR NOT NULL,
    region               VARCHAR NOT NULL,
    location             VARCHAR NOT NULL,
    storage_name         VARCHAR NOT NULL,
    path                 VARCHAR NOT NULL,
    size_gib             INTEGER NOT NULL,
    state                VARCHAR NOT NULL,
    message              VARCHAR,
    delete_with_cluster  BOOLEAN NOT NULL,
    bytes_held           BIGINT,
    sampled_at           TIMESTAMP WITH TIME ZONE,
    meter_sample_at      TIMESTAMP WITH TIME ZONE,
    meter_bytes          BIGINT,
    meter_hour           TIMESTAMP WITH TIME ZONE,
    meter_byte_millis    NUMERIC(38, 0),
    pending_action       VARCHAR,
    pending_operation    VARCHAR(512),
    failures             INTEGER NOT NULL,
    next_attempt_at      TIMESTAMP WITH TIME ZONE,
    delete_accepted_at   TIMESTAMP WITH TIME ZONE,
    version              BIGINT NOT NULL,
    created_at           TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at           TIMESTAMP WITH TIME ZONE NOT NULL,
    deleted_at           TIMESTAMP WITH TIME ZONE,
    CONSTRAINT shared_volumes_one_per_cluster UNIQUE (cluster_id)
);

CREATE INDEX shared_volumes_tenant ON shared_volumes (tenant_id, created_at);
CREATE INDEX shared_volumes_due ON shared_volumes (state, next_attempt_at);
