-- The GPU market's state (MarketRepository), its ledger (MarketLedger) and feed (MarketFeed).
-- One row per entity, keyed by its id, so a tick writes the rows it changed and no others.
-- Money is integer micro-dollars (BIGINT), as the domain keeps it. *_json columns hold the short
-- ordered id lists and records of an entity (queue order, notice order, drain order, owed replacements),
-- written and read by the adapter. ord columns keep the market's insertion orders (tenants, clusters,
-- grants) and idle_ord the order nodes went idle, which the tick depends on.

-- The market as a whole: one row. version is a random number each save writes anew: a save whose
-- market was loaded at another version is refused (optimistic), and a cache is valid while it matches.
-- version 0: never saved (an empty market); the row is there from the start so a load can lock it.
CREATE TABLE market_state (
    id                 INTEGER PRIMARY KEY,
    version            BIGINT NOT NULL,
    last_tick          TIMESTAMP WITH TIME ZONE,
    request_sequence   BIGINT NOT NULL,
    grant_sequence     BIGINT NOT NULL,
    next_ord           BIGINT NOT NULL,
    minimum_hold       VARCHAR,   -- ISO-8601 durations (MarketTimings)
    protection         VARCHAR,
    notice             VARCHAR,
    idle_grace         VARCHAR,
    balance_horizon    VARCHAR,
    billing_period     VARCHAR,
    eviction_grace     VARCHAR,
    between_ticks_json VARCHAR             -- events of calls between ticks, published with the next tick's
);
INSERT INTO market_state (id, version, request_sequence, grant_sequence, next_ord) VALUES (1, 0, 0, 0, 0);

CREATE TABLE market_pools (
    id                 VARCHAR PRIMARY KEY,   -- site/nodeClass
    gpus_per_node      INTEGER NOT NULL,
    reserve_micros     BIGINT NOT NULL,
    last_price_micros  BIGINT,
    reclaiming_json    VARCHAR NOT NULL,      -- request ids under notice, in notice order
    draining_json      VARCHAR NOT NULL       -- node ids draining, in drain order
);

-- supply: every node of a pool; in_service false while health checks keep it out.
CREATE TABLE market_nodes (
    id                 VARCHAR PRIMARY KEY,
    pool_id            VARCHAR NOT NULL,
    in_service         BOOLEAN NOT NULL,
    block_cluster_id   VARCHAR,
    seated_gpus        INTEGER NOT NULL,
    draining_until     TIMESTAMP WITH TIME ZONE,
    lost_grant_json    VARCHAR                -- the grant health checks took it from, for when it comes back
);
CREATE INDEX market_nodes_pool ON market_nodes (pool_id);

-- credits (top-ups included) and what the ledger charged so far: balance = credits - charged.
CREATE TABLE market_tenants (
    id                 VARCHAR PRIMARY KEY,
    ord                BIGINT NOT NULL,
    credits_micros     BIGINT NOT NULL,
    charged_micros     BIGINT NOT NULL
);

-- a cluster's limit price (null: none), its max size, its queue and the replacements it is owed.
CREATE TABLE market_clusters (
    id                 VARCHAR PRIMARY KEY,
    ord                BIGINT NOT NULL,
    tenant_id          VARCHAR NOT NULL,
    max_gpus           BIGINT NOT NULL,
    limit_micros       BIGINT,
    used_gpus          BIGINT NOT NULL,
    queue_json         VARCHAR NOT NULL,      -- request ids in queue order
    block_waiting_json VARCHAR NOT NULL,
    claims_json        VARCHAR NOT NULL,
    -- the mapi branch adds ClusterState.packing and .limitSetAt: MarketRows binds and reads them once merged
    packing            BOOLEAN DEFAULT FALSE NOT NULL,
    limit_set_at       TIMESTAMP WITH TIME ZONE
);

-- every request ever filed: open ones are the market's (is_open = TRUE); an ended one stays as an episode.
-- keyed by the filing sequence: a job filed again after it ended reuses its request id.
CREATE TABLE market_requests (
    id                 VARCHAR NOT NULL,
    is_open            BOOLEAN NOT NULL,
    job_id             VARCHAR NOT NULL,
    attempt            INTEGER NOT NULL,
    cluster_id         VARCHAR NOT NULL,
    pool_id            VARCHAR NOT NULL,
    gpus               INTEGER NOT NULL,
    nodes              INTEGER NOT NULL,
    priority           VARCHAR NOT NULL,
    request_seq        BIGINT PRIMARY KEY,
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    job_limit_micros   BIGINT,
    phase              VARCHAR NOT NULL,
    reason             VARCHAR NOT NULL,
    message            VARCHAR,
    grant_ids_json     VARCHAR NOT NULL,
    locked_rate_micros BIGINT,
    protected_until    TIMESTAMP WITH TIME ZONE,
    start_limit        BIGINT NOT NULL,
    notice_deadline    TIMESTAMP WITH TIME ZONE,
    provisioned        BOOLEAN NOT NULL,
    block_node_id      VARCHAR,
    market_rate        BIGINT NOT NULL,
    locked_in_force    BOOLEAN NOT NULL,
    running_at         TIMESTAMP WITH TIME ZONE,   -- when its gang was first provisioned
    ended_at           TIMESTAMP WITH TIME ZONE,
    end_kind           VARCHAR                     -- revoked | ended
);
CREATE INDEX market_requests_open ON market_requests (is_open, request_seq);
CREATE INDEX market_requests_cluster ON market_requests (cluster_id, request_seq);

-- node grants still billing: locked rate, ready time, hold and protection window, the billing cursor.
CREATE TABLE market_grants (
    id                 VARCHAR PRIMARY KEY,
    ord                BIGINT NOT NULL,
    idle_ord           BIGINT,                     -- its place in the idle order; null when not idle
    node_id            VARCHAR NOT NULL,
    pool_id            VARCHAR NOT NULL,
    cluster_id         VARCHAR NOT NULL,
    gpus               INTEGER NOT NULL,
    locked_rate_micros BIGINT NOT NULL,
    granted_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    ready_at           TIMESTAMP WITH TIME ZONE,
    hold_until         TIMESTAMP WITH TIME ZONE,
    protected_until    TIMESTAMP WITH TIME ZONE,
    replacement        BOOLEAN NOT NULL,
    request_id         VARCHAR,
    idle_since         TIMESTAMP WITH TIME ZONE,
    market_rate        BIGINT NOT NULL,
    locked_in_force    BOOLEAN NOT NULL,
    billed_until       TIMESTAMP WITH TIME ZONE,
    ends_at            TIMESTAMP WITH TIME ZONE,
    entry_from         TIMESTAMP WITH TIME ZONE,
    entry_rate         BIGINT NOT NULL,
    entry_locked       BOOLEAN NOT NULL,
    entry_accrued      BIGINT NOT NULL,
    carry              BIGINT NOT NULL
);

-- the ledger: one charge per (node grant, interval start), so a replayed tick never bills twice.
CREATE TABLE market_charges (
    grant_id           VARCHAR NOT NULL,
    from_at            TIMESTAMP WITH TIME ZONE NOT NULL,
    to_at              TIMESTAMP WITH TIME ZONE NOT NULL,
    hour_start         TIMESTAMP WITH TIME ZONE NOT NULL,
    tenant_id          VARCHAR NOT NULL,
    cluster_id         VARCHAR NOT NULL,
    pool_id            VARCHAR NOT NULL,
    node_id            VARCHAR NOT NULL,
    rate_micros        BIGINT NOT NULL,
    gpus               INTEGER NOT NULL,
    amount_micros      BIGINT NOT NULL,
    locked             BOOLEAN NOT NULL,
    PRIMARY KEY (grant_id, from_at)
);
CREATE INDEX market_charges_tenant ON market_charges (tenant_id, from_at);

-- credit top-ups, once per (tenant, idempotency key).
CREATE TABLE market_credits (
    tenant_id          VARCHAR NOT NULL,
    idempotency_key    VARCHAR NOT NULL,
    amount_micros      BIGINT NOT NULL,
    note               VARCHAR,
    recorded_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (tenant_id, idempotency_key)
);

-- the public feed: per pool and tick. seq continues across restarts (an identity column).
CREATE TABLE market_feed (
    seq                BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    tick_at            TIMESTAMP WITH TIME ZONE NOT NULL,
    pool_id            VARCHAR NOT NULL,
    price_micros       BIGINT,
    reserve_micros     BIGINT NOT NULL,
    supply             INTEGER NOT NULL,
    free_nodes         INTEGER NOT NULL,
    demand             INTEGER NOT NULL,
    waiting            INTEGER NOT NULL,
    granted            INTEGER NOT NULL,
    CONSTRAINT market_feed_pool_at UNIQUE (pool_id, tick_at)
);
