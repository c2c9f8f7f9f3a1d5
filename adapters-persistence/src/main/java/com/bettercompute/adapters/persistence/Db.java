package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.jdbi.v3.core.statement.SqlStatement;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The repositories' one way into the database. Each call runs on the thread's open handle when there is
 * one (so inside {@link JdbiTransactions#inTransaction} every repository shares its transaction), else on
 * a fresh one in auto-commit. Library errors stop here: a unique violation the caller asked to guard
 * becomes {@code CONFLICT}; anything else is logged (with its SQL) and becomes {@code INTERNAL} with a
 * message that names no table, statement or library type.
 */
final class Db {
    private static final Logger LOG = LoggerFactory.getLogger(Db.class);
    /** SQLSTATE of a unique violation; the same on H2 and PostgreSQL. */
    static final String UNIQUE_VIOLATION = "23505";

    private final Jdbi jdbi;

    Db(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Runs a read or a single statement; {@code what} names it in the log when it fails. */
    <T> T call(String what, HandleCallback<T, RuntimeException> work) {
        try {
            return jdbi.withHandle(h -> {
                // a statement sees the writes held before it: they go first
                Together held = TOGETHER.get();
                if (held != null && !held.isEmpty()) {
                    held.send(h);
                }
                return work.withHandle(h);
            });
        } catch (JdbiException e) {
            throw failure(what, e);
        }
    }

    /** The writes {@link JdbiTransactions#writesTogether} holds on this thread (PostgreSQL only), else null. */
    private static final ThreadLocal<Together> TOGETHER = new ThreadLocal<>();

    /**
     * Writes held to be sent at once, in the order held: statements held one after another go as one text, which
     * PostgreSQL's driver sends in one round trip (one Sync), each reading its snapshot when it starts; rows held by
     * {@link #addCopy} go by {@code COPY … FROM STDIN} between them. Positional parameters set on the JDBC statement
     * itself: the text changes with the group's size, and Jdbi would parse each new text and look up an argument
     * factory per value (most of a group's leader's time in a profile of the named version).
     */
    static final class Together {
        /** What is held, in order: a {@link Statement} or a {@link Copy}. */
        private final List<Object> parts = new ArrayList<>();
        private final List<Function<SQLException, DomainException>> conflicts = new ArrayList<>();

        /** A statement and its values in the order of its {@code ?}. */
        private record Statement(String sql, List<?> values) {}

        /**
         * Rows for {@code COPY table (columns) FROM STDIN}: lines as {@link #copyLine} makes them, in UTF-8, in pieces
         * of whole lines (each written to the copy as it is, not joined first).
         */
        private record Copy(String sql, List<byte[]> lines) {}

        boolean isEmpty() {
            return parts.isEmpty();
        }

        /**
         * Holds a statement and its values in the order of its {@code ?}; {@code conflict}, when not null, is the
         * {@code CONFLICT} a unique violation of the text becomes (the first held statement that gave one decides).
         */
        void add(String sql, List<?> statementValues, Function<SQLException, DomainException> conflict) {
            parts.add(new Statement(sql, new ArrayList<>(statementValues)));
            if (conflict != null) {
                conflicts.add(conflict);
            }
        }

        /**
         * Holds rows to be copied into {@code table}: {@code lines} pieces of whole lines, one {@link #copyLine} per
         * row, its values in the order of {@code columns}, in UTF-8 (the driver's client encoding). PostgreSQL reads each value of a COPY by
         * its column's type straight from the text, with none of a statement's parameters, arrays and casts: a group's
         * widest rows (clusters, node pools) cost it less this way than an {@link #addRows} of them, even with the
         * round trips a copy adds (docs/decisions/persistence-writes.md). {@code conflict} as in {@link #add}.
         */
        void addCopy(String table, List<String> columns, List<byte[]> lines, Function<SQLException, DomainException> conflict) {
            parts.add(new Copy("COPY " + table + " (" + String.join(", ", columns) + ") FROM STDIN", lines));
            if (conflict != null) {
                conflicts.add(conflict);
            }
        }

        /**
         * Holds {@code INSERT INTO table (columns) SELECT * FROM unnest(...)} + {@code suffix}: the rows' values sent as one
         * array per column (their text forms, cast to each column's {@code types} entry). The text is the same for any
         * number of rows, so the driver parses it once and PostgreSQL prepares and plans it once per connection, where a
         * multi-row {@code VALUES} text was new with each group's size: parsed again on both sides, and every value a
         * parameter of its own. {@code typedColumns} are written {@code "name type"}; {@code rows} holds the rows'
         * values one after the other, in column order.
         */
        void addRows(String table, List<String> typedColumns, List<?> rows, String suffix,
                     Function<SQLException, DomainException> conflict) {
            int width = typedColumns.size();
            int count = rows.size() / width;
            List<Object> arrays = new ArrayList<>(width);
            for (int column = 0; column < width; column++) {
                String[] texts = new String[count];
                for (int row = 0; row < count; row++) {
                    texts[row] = text(rows.get(row * width + column));
                }
                arrays.add(new TextArray(texts));
            }
            add(unnestInsertSql(table, typedColumns) + suffix, arrays, conflict);
        }

        /**
         * Sends what is held, in order (the statements between two copies as one text); a unique violation becomes
         * the CONFLICT a held write named.
         */
        void send(Handle h) {
            List<Object> sending = List.copyOf(parts);
            List<Function<SQLException, DomainException>> mapped = List.copyOf(conflicts);
            parts.clear();
            conflicts.clear();
            try {
                List<Statement> run = new ArrayList<>();
                for (Object part : sending) {
                    if (part instanceof Copy copy) {
                        execute(h, run);
                        run.clear();
                        copy(h, copy);
                    } else {
                        run.add((Statement) part);
                    }
                }
                execute(h, run);
            } catch (SQLException e) {
                SQLException unique = uniqueViolation(e);
                if (unique == null || mapped.isEmpty()) {
                    throw new UnableToExecuteStatementException("sending " + sending.size() + " held writes", e, null);
                }
                LOG.debug("unique constraint refused a write: {}", unique.getMessage());
                throw mapped.get(0).apply(unique);
            }
        }

        /** Rows copied: the lines written as they are, ended; a copy that fails is cancelled. */
        private static void copy(Handle h, Copy copy) throws SQLException {
            CopyIn in = h.getConnection().unwrap(PGConnection.class).getCopyAPI().copyIn(copy.sql());
            try {
                for (byte[] piece : copy.lines()) {
                    in.writeToCopy(piece, 0, piece.length);
                }
                in.endCopy();
            } finally {
                if (in.isActive()) {
                    in.cancelCopy();
                }
            }
        }

        /** Statements held one after another, as one text in one round trip. */
        private static void execute(Handle h, List<Statement> run) throws SQLException {
            if (run.isEmpty()) {
                return;
            }
            // the driver's own way to send statements of different texts in one round trip (a JDBC batch repeats one
            // text): it splits a multi-statement text into its queries, sent with one Sync
            String text = run.stream().map(Statement::sql).collect(Collectors.joining(";\n"));
            try (PreparedStatement statement = h.getConnection().prepareStatement(text)) {
                int position = 1;
                for (Statement held : run) {
                    for (Object value : held.values()) {
                        set(statement, position++, value);
                    }
                }
                statement.execute();
            }
        }
    }

    /**
     * A row as a line of {@code COPY}'s text format: the values' text forms ({@link #text}) apart by tabs, a null as
     * {@code \N}, and in a value the backslash, the tab, the newline and the carriage return escaped by a
     * backslash (every other character, any quote or brace included, is itself).
     */
    // Written here because the driver has none: PgJDBC's CopyManager takes the bytes of COPY's text and encodes no row.
    static void copyLine(StringBuilder lines, List<?> values) {
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                lines.append('\t');
            }
            Object value = values.get(i);
            if (value == null) {
                lines.append("\\N");
                continue;
            }
            String text = text(value);
            for (int k = 0; k < text.length(); k++) {
                char c = text.charAt(k);
                switch (c) {
                    case '\\' -> lines.append("\\\\");
                    case '\t' -> lines.append("\\t");
                    case '\n' -> lines.append("\\n");
                    case '\r' -> lines.append("\\r");
                    default -> lines.append(c);
                }
            }
        }
        lines.append('\n');
    }

    /** A column's values as PostgreSQL's text forms, sent as one {@code varchar[]} parameter ({@link Together#addRows}). */
    private record TextArray(String[] texts) {}

    /** A value's text form as PostgreSQL reads it for any column type (an instant in ISO 8601, UTC); null stays null. */
    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** The names of columns written {@code "name type"}. */
    static List<String> names(List<String> typedColumns) {
        return typedColumns.stream().map(c -> c.substring(0, c.indexOf(' '))).toList();
    }

    /**
     * {@code INSERT INTO table (a, b) SELECT * FROM unnest(?::varchar[]::type_a[], ?::varchar[]::type_b[])} for the
     * columns {@code "a type_a", "b type_b"}.
     */
    static String unnestInsertSql(String table, List<String> typedColumns) {
        return "INSERT INTO " + table + " (" + String.join(", ", names(typedColumns)) + ") SELECT * FROM unnest("
                + typedColumns.stream().map(c -> "?::varchar[]::" + c.substring(c.indexOf(' ') + 1) + "[]")
                .collect(Collectors.joining(", ")) + ")";
    }

    /** Sets a row value as the repositories' Jdbi arguments do (instants as UTC {@code OffsetDateTime}s). */
    static void set(PreparedStatement statement, int position, Object value) throws SQLException {
        if (value instanceof TextArray array) {
            statement.setArray(position, statement.getConnection().createArrayOf("varchar", array.texts()));
        } else if (value == null) {
            statement.setNull(position, Types.NULL);
        } else if (value instanceof Instant instant) {
            statement.setObject(position, Times.toColumn(instant));
        } else if (value instanceof String text) {
            statement.setString(position, text);
        } else {
            statement.setObject(position, value);
        }
    }

    /** Binds a row's values by their columns' names (a null as an untyped null, as Jdbi binds a null object). */
    static <S extends SqlStatement<S>> S bindRow(S statement, List<String> columns, List<Object> values) {
        for (int i = 0; i < columns.size(); i++) {
            statement.bind(columns.get(i), values.get(i));
        }
        return statement;
    }

    /** {@code ?, ?, ?}: {@code n} positional parameters. */
    static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /** {@code INSERT INTO table (a, b) VALUES (?, ?), (?, ?)}: {@code rows} rows of positional parameters. */
    static String insertRowsSql(String table, List<String> columns, int rows) {
        String row = "(" + marks(columns.size()) + ")";
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES " + String.join(", ", Collections.nCopies(rows, row));
    }

    /** The writes held on this thread, or null when a write is to be sent at once. */
    static Together together() {
        return TOGETHER.get();
    }

    /**
     * Runs the work holding the writes that {@link #together} offers, then sends them at once (on the thread's
     * open handle, in its transaction). A failure to send is thrown here; the transaction must then roll back.
     */
    <T> T holdingWrites(String what, java.util.function.Supplier<T> work) {
        Together held = new Together();
        TOGETHER.set(held);
        try {
            T result = work.get();
            if (!held.isEmpty()) {
                try {
                    jdbi.useHandle(held::send);
                } catch (JdbiException e) {
                    throw failure(what, e);
                }
            }
            return result;
        } finally {
            TOGETHER.remove();
        }
    }

    /** Runs the work on the thread's open handle without sending the held writes first (to hold more). */
    void onHandle(Consumer<Handle> work) {
        jdbi.useHandle(work::accept);
    }

    /** Runs several statements as one unit: the caller's transaction when there is one, else its own. */
    <T> T inTransaction(String what, HandleCallback<T, RuntimeException> work) {
        return call(what, h -> h.inTransaction(work));
    }

    void inTransactionRun(String what, Consumer<Handle> work) {
        inTransaction(what, h -> {
            work.accept(h);
            return null;
        });
    }

    /**
     * Runs statements that a unique constraint may refuse, turning that refusal into the given
     * {@code CONFLICT}. A savepoint around them keeps the caller's transaction usable afterwards:
     * PostgreSQL otherwise refuses every later statement of an aborted transaction.
     */
    static <T> T guardUnique(Handle h, String savepoint, Function<Handle, T> work,
                             Function<SQLException, DomainException> conflict) {
        h.savepoint(savepoint);
        try {
            T result = work.apply(h);
            h.releaseSavepoint(savepoint);
            return result;
        } catch (JdbiException e) {
            SQLException unique = uniqueViolation(e);
            if (unique == null) {
                throw e;
            }
            h.rollbackToSavepoint(savepoint);
            LOG.debug("unique constraint refused a write: {}", unique.getMessage());
            throw conflict.apply(unique);
        }
    }

    /** The SQL exception in the chain that is a unique violation, or null. */
    static SQLException uniqueViolation(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException sql) {
                for (SQLException s = sql; s != null; s = s.getNextException()) {
                    if (UNIQUE_VIOLATION.equals(s.getSQLState())) {
                        return s;
                    }
                }
            }
        }
        return null;
    }

    /** Whether the violated constraint (as the engine names it in its message) is this one. */
    static boolean violates(SQLException unique, String constraint) {
        String m = unique.getMessage();
        return m != null && m.toLowerCase(Locale.ROOT).contains(constraint);
    }

    /**
     * Writes a row by its key: updates it when it is there, else inserts it. (Plain UPDATE-then-INSERT:
     * the one upsert both engines run unchanged; the catalog is written by one loader at a time.)
     */
    static void upsert(Handle h, String table, List<String> keys, Map<String, Object> row) {
        String set = assignments(row.keySet().stream().filter(c -> !keys.contains(c)).toList());
        String where = keys.stream().map(c -> c + " = :" + c).collect(Collectors.joining(" AND "));
        int rows = set.isEmpty()
                ? h.createQuery("SELECT COUNT(*) FROM " + table + " WHERE " + where).bindMap(row).mapTo(Long.class).one().intValue()
                : h.createUpdate("UPDATE " + table + " SET " + set + " WHERE " + where).bindMap(row).execute();
        if (rows == 0) {
            h.createUpdate(insertSql(table, List.copyOf(row.keySet()))).bindMap(row).execute();
        }
    }

    /** {@code INSERT INTO table (a, b) VALUES (:a, :b)}: parameters are named after their columns. */
    static String insertSql(String table, List<String> columns) {
        return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                + columns.stream().map(c -> ":" + c).collect(Collectors.joining(", ")) + ")";
    }

    /** The most rows {@link #insertRows} puts in one statement (PostgreSQL takes at most 32,767 parameters). */
    static final int ROWS_PER_INSERT = 256;

    /** Sets one row's values, in column order, from a 1-based parameter position. */
    @FunctionalInterface
    interface RowBinder<T> {
        void bind(PreparedStatement statement, int position, T row) throws SQLException;
    }

    /**
     * Inserts {@code rows} as multi-row {@code INSERT ... VALUES (...), (...) suffix} statements on the handle's
     * connection (its transaction), instead of a batch of one-row statements through Jdbi: each statement's count
     * is exact (a driver's rewritten batch answers "no info" per row), and the values are set on the JDBC
     * statement directly, which for a tick's ~1,700 ledger rows of 12 columns costs a fraction of Jdbi's binding
     * of named or positional arguments (docs/decisions/persistence-writes.md). The chunks are powers of
     * two up to {@link #ROWS_PER_INSERT} rows, so a few statement texts serve any count (the driver prepares
     * each once per connection). Returns the rows the statements reported inserted.
     */
    static <T> int insertRows(Handle h, String table, List<String> columns, String suffix, List<T> rows,
                              RowBinder<T> binder) {
        int inserted = 0;
        int from = 0;
        while (from < rows.size()) {
            int n = Math.min(ROWS_PER_INSERT, Integer.highestOneBit(rows.size() - from));
            String sql = insertRowsSql(table, columns, n) + suffix;
            try (PreparedStatement insert = h.getConnection().prepareStatement(sql)) {
                int position = 1;
                for (T r : rows.subList(from, from + n)) {
                    binder.bind(insert, position, r);
                    position += columns.size();
                }
                inserted += insert.executeUpdate();
            } catch (SQLException e) {
                throw new UnableToExecuteStatementException("inserting " + n + " rows into " + table, e, null);
            }
            from += n;
        }
        return inserted;
    }

    /** {@code a = :a, b = :b} */
    static String assignments(List<String> columns) {
        return columns.stream().map(c -> c + " = :" + c).collect(Collectors.joining(", "));
    }

    /** A row for {@link #upsert}: column names and values (null allowed) in order. */
    static Map<String, Object> row(Object... columnsAndValues) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 0; i < columnsAndValues.length; i += 2) {
            row.put((String) columnsAndValues[i], columnsAndValues[i + 1]);
        }
        return row;
    }

    static DomainException failure(String what, RuntimeException e) {
        LOG.error("database call failed while {}", what, e);
        return new DomainException(ErrorCode.INTERNAL, "The database could not complete the request.");
    }
}
