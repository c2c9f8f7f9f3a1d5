package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;

class H2SigningKeyRepositoryTest extends SigningKeyRepositoryContract {
    @Override
    protected Backend<SigningKeyRepository> open() {
        return Backend.h2(db -> db.newSigningKeyRepository(KeyEncryptionKey.random()), "oidc_signing_keys");
    }
}
