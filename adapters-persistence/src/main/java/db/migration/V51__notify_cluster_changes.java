package db.migration;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * On PostgreSQL, every statement that writes {@code clusters} or {@code node_pools} notifies
 * {@code bc_clusters_changed} in its transaction (delivered at commit): the other replicas then stop answering
 * reads of clusters from memory (docs/decisions/persistence-caches.md). A trigger rather than a
 * NOTIFY the repository sends: it costs no round trip of its own (a group of creates is latency-bound) and
 * no write can forget it. H2 belongs to one process, which knows its own writes: nothing to do there. A Java
 * migration because the statements are PostgreSQL's alone and the SQL migrations run on both engines.
 */
public final class V51__notify_cluster_changes extends BaseJavaMigration {
    @Override
    public void migrate(Context context) throws SQLException {
        if (!"PostgreSQL".equals(context.getConnection().getMetaData().getDatabaseProductName())) {
            return;
        }
        try (Statement s = context.getConnection().createStatement()) {
            PostgresNotifyTrigger.create(s, "bc_notify_clusters_changed", "bc_clusters_changed", "INSERT OR UPDATE OR DELETE",
                    "clusters", "node_pools");
        }
    }
}
