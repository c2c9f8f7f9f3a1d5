-- Each tenant's count of clusters that are not deleted (one being deleted counts), for the quota check: one row
-- read under the tenant's lock instead of a count over every cluster the tenant ever had. JdbiClusterRepository
-- keeps it in the transaction of each write that adds a cluster or moves one into or out of 'deleted'
-- (docs/decisions.md, "Creates in fewer round trips").
CREATE TABLE cluster_counts (
    tenant_id   VARCHAR PRIMARY KEY,
    not_deleted BIGINT  NOT NULL
);

INSERT INTO cluster_counts (tenant_id, not_deleted)
SELECT tenant_id, COUNT(*) FROM clusters WHERE state <> 'deleted' GROUP BY tenant_id;
