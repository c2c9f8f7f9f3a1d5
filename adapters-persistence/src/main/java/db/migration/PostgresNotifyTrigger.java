package db.migration;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates, on PostgreSQL, a statement trigger that notifies a channel from every statement writing the given
 * tables, in the writing transaction (delivered at commit): how the replicas hear of each other's writes
 * (adapters-persistence's {@code PostgresChangeListener}). Not a migration itself: V51, V52 and V87 use it.
 */
final class PostgresNotifyTrigger {
    private PostgresNotifyTrigger() {
    }

    static void create(Statement s, String function, String channel, String events, String... tables) throws SQLException {
        s.execute("CREATE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                + "BEGIN\n"
                + "  PERFORM pg_notify('" + channel + "', '');\n"
                + "  RETURN NULL;\n"
                + "END $$");
        for (String table : tables) {
            s.execute("CREATE TRIGGER " + table + "_notify AFTER " + events + " ON " + table
                    + " FOR EACH STATEMENT EXECUTE FUNCTION " + function + "()");
        }
    }
}
