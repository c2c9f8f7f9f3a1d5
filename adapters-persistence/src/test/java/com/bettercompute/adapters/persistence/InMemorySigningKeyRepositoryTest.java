package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;

class InMemorySigningKeyRepositoryTest extends SigningKeyRepositoryContract {
    @Override
    protected Backend<SigningKeyRepository> open() {
        com.bettercompute.application.fakes.InMemorySigningKeyRepository fake = new com.bettercompute.application.fakes.InMemorySigningKeyRepository();
        return new Backend<>("in-memory", fake, fake::clear, () -> {});
    }
}
