package db.migration;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * On PostgreSQL, every statement that writes {@code oidc_signing_keys} (V86) notifies {@code bc_signing_keys_changed}
 * in its transaction (delivered at commit): the other replicas read the keys again, so a key one replica made
 * for a rotation is published by all of them before it signs. The same kind of trigger as the clusters' (V51).
 * H2: nothing to do (one process).
 */
public final class V87__notify_signing_key_changes extends BaseJavaMigration {
    @Override
    public void migrate(Context context) throws SQLException {
        if (!"PostgreSQL".equals(context.getConnection().getMetaData().getDatabaseProductName())) {
            return;
        }
        try (Statement s = context.getConnection().createStatement()) {
            PostgresNotifyTrigger.create(s, "bc_notify_signing_keys_changed", "bc_signing_keys_changed", "INSERT OR UPDATE OR DELETE",
                    "oidc_signing_keys");
        }
    }
}
