-- Which replica carries the market into which tenant cluster: the replicas that do, each until its last
-- word runs out, and one lease per cluster held by one of them (a row only while held).
CREATE TABLE in_cluster_replicas (
    owner        VARCHAR PRIMARY KEY,
    alive_until  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE in_cluster_leases (
    cluster_id   VARCHAR PRIMARY KEY,
    lease_owner  VARCHAR NOT NULL,
    lease_until  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE INDEX in_cluster_leases_owner ON in_cluster_leases (lease_owner);
