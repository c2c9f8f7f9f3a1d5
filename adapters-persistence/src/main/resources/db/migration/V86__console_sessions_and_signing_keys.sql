-- The web console's sessions, shared by every replica. Only SHA-256 hashes are kept: of the session id (the
-- browser's cookie, a secret) and of the API token it was opened with (as the principals keep it).
CREATE TABLE console_sessions (
    id_hash        VARCHAR(64) PRIMARY KEY,
    token_hash     VARCHAR(64) NOT NULL,
    signed_in_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    last_seen_at   TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX console_sessions_token ON console_sessions (token_hash, signed_in_at);
CREATE INDEX console_sessions_last_seen ON console_sessions (last_seen_at);
CREATE INDEX console_sessions_signed_in ON console_sessions (signed_in_at);

-- The keys that sign the platform's ID tokens, one per rotation (generation), shared by every replica. The key
-- pair is sealed (AES-256-GCM) with the replicas' key-encryption key, which the database never holds:
-- sealed_with is that key's id (a keyed hash of it), sealed_key the nonce and the ciphertext in base64.
CREATE TABLE oidc_signing_keys (
    generation     BIGINT PRIMARY KEY,
    kid            VARCHAR(64) NOT NULL UNIQUE,
    created_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    signs_from     TIMESTAMP WITH TIME ZONE NOT NULL,
    sealed_with    VARCHAR(32) NOT NULL,
    sealed_key     VARCHAR(8192) NOT NULL
);
