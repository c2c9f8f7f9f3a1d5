package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;

class PostgresSigningKeyRepositoryTest extends SigningKeyRepositoryContract {
    @Override
    protected Backend<SigningKeyRepository> open() {
        return Backend.postgres(db -> db.newSigningKeyRepository(KeyEncryptionKey.random()), "oidc_signing_keys");
    }
}
