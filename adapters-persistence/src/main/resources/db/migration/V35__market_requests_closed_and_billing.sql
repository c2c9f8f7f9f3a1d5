-- The requests route lists a cluster's latest ended and revoked requests (newest first, bounded).
CREATE INDEX market_requests_closed ON market_requests (cluster_id, is_open, ended_at);

-- The billing cursors of the grants whose billing alone moved since their market_grants row was written
-- (BillingCursors): a tick rewrites these few rows of text instead of one row per billed grant.
CREATE TABLE market_billing (
    chunk              INTEGER PRIMARY KEY,
    cursors            VARCHAR NOT NULL
);
