package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ConsoleSessionRepository;

class PostgresConsoleSessionRepositoryTest extends ConsoleSessionRepositoryContract {
    @Override
    protected Backend<ConsoleSessionRepository> open() {
        return Backend.postgres(Database::consoleSessions, "console_sessions");
    }
}
