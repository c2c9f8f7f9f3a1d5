package com.bettercompute.adapters.persistence;

import org.jdbi.v3.core.argument.AbstractArgumentFactory;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.config.ConfigRegistry;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * Instants go to {@code TIMESTAMP WITH TIME ZONE} columns as UTC {@link OffsetDateTime}s truncated to
 * microseconds — the precision of both engines — and come back as the same instant. The JVM's time zone
 * plays no part ({@link java.sql.Timestamp} is never used).
 */
final class Times {
    private Times() {}

    static OffsetDateTime toColumn(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** Binds every {@link Instant} of every statement this way. */
    static final class InstantArgumentFactory extends AbstractArgumentFactory<Instant> {
        InstantArgumentFactory() {
            super(Types.TIMESTAMP_WITH_TIMEZONE);
        }

        @Override
        protected Argument build(Instant value, ConfigRegistry config) {
            OffsetDateTime column = toColumn(value);
            return (position, statement, ctx) -> statement.setObject(position, column);
        }
    }
}
