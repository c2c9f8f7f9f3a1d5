package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ConsoleSessionRepository;

class InMemoryConsoleSessionRepositoryTest extends ConsoleSessionRepositoryContract {
    @Override
    protected Backend<ConsoleSessionRepository> open() {
        com.bettercompute.application.fakes.InMemoryConsoleSessionRepository fake = new com.bettercompute.application.fakes.InMemoryConsoleSessionRepository();
        return new Backend<>("in-memory", fake, fake::clear, () -> {});
    }
}
