-- The billed hours of shared volumes: the key (volume, hour) makes an hour billable once, whatever a crash replays.
CREATE TABLE storage_charges (
    volume_id     VARCHAR NOT NULL,
    hour_start    TIMESTAMP WITH TIME ZONE NOT NULL,
    tenant_id     VARCHAR NOT NULL,
    cluster_id    VARCHAR NOT NULL,
    byte_seconds  NUMERIC(38, 0) NOT NULL,
    amount_usd    NUMERIC(24, 6) NOT NULL,
    recorded_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (volume_id, hour_start)
);

CREATE INDEX storage_charges_tenant ON storage_charges (tenant_id, hour_start);
