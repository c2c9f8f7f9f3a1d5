package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ConsoleSessionRepository;

class H2ConsoleSessionRepositoryTest extends ConsoleSessionRepositoryContract {
    @Override
    protected Backend<ConsoleSessionRepository> open() {
        return Backend.h2(Database::consoleSessions, "console_sessions");
    }
}
