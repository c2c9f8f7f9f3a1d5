-- Sign-in to clusters (the device authorization grant, RFC 8628, and its refresh tokens). Only SHA-256
-- hashes of the codes and tokens are kept: each is a secret, and its hash is all that finds the row again.
CREATE TABLE sign_in_devices (
    device_code_hash   VARCHAR(64) PRIMARY KEY,
    user_code_hash     VARCHAR(64) NOT NULL UNIQUE,
    cluster_id         VARCHAR(64) NOT NULL,
    created_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    interval_seconds   INTEGER NOT NULL,
    last_polled_at     TIMESTAMP WITH TIME ZONE,
    decision           VARCHAR(16) NOT NULL,
    principal_id       VARCHAR(256)
);
CREATE INDEX sign_in_devices_expiry ON sign_in_devices (expires_at);

CREATE TABLE sign_in_refresh (
    token_hash         VARCHAR(64) PRIMARY KEY,
    principal_id       VARCHAR(256) NOT NULL,
    cluster_id         VARCHAR(64) NOT NULL,
    last_used_at       TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX sign_in_refresh_last_used ON sign_in_refresh (last_used_at);
