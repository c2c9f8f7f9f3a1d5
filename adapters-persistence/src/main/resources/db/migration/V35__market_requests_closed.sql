-- The requests route lists a cluster's latest ended and revoked requests (newest first, bounded).
CREATE INDEX market_requests_closed ON market_requests (cluster_id, is_open, ended_at);
