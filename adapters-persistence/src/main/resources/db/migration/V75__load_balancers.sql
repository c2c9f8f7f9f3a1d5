-- The platform's load balancers: one row per (cluster, Service uid), written before its address is reserved
-- and removed only after the address is released, so no address exists at the provider without the row that
-- releases it. provider_name (bc-lb-…, derived from the cluster and the uid) names the address and everything
-- forwarding to it. ports_json and backends_json are plain text the adapter writes and reads.
CREATE TABLE load_balancers (
    cluster_id         VARCHAR NOT NULL,
    service_uid        VARCHAR NOT NULL,
    tenant_id          VARCHAR NOT NULL,
    namespace          VARCHAR NOT NULL,
    service            VARCHAR NOT NULL,
    project            VARCHAR NOT NULL,
    region             VARCHAR NOT NULL,
    provider_name      VARCHAR NOT NULL UNIQUE,
    state              VARCHAR NOT NULL,      -- LoadBalancerState name
    address            VARCHAR,
    ports_json         VARCHAR NOT NULL,      -- [80, 443]
    backends_json      VARCHAR NOT NULL,      -- ["projects/p/zones/z/instances/n", ...]
    health_check_port  INTEGER,
    health_check_path  VARCHAR,
    refusal            VARCHAR,               -- RefusalReason name while PENDING
    refusal_text       VARCHAR,
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    version            BIGINT NOT NULL,
    PRIMARY KEY (cluster_id, service_uid)
);
CREATE INDEX load_balancers_region ON load_balancers (region, state);

-- One row per region where load balancers were ever claimed: a claim locks it (SELECT … FOR UPDATE) while it
-- counts the cluster's cap and the region's pool, so two claims never both take the last place.
CREATE TABLE load_balancer_regions (
    region             VARCHAR PRIMARY KEY
);
