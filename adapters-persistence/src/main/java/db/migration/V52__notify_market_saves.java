package db.migration;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * On PostgreSQL, every save of the market (it always moves the {@code market_state} row's version) notifies
 * {@code bc_market_saved} in its transaction, delivered at commit: the other replicas' validating webhooks then
 * read the market's facts again (docs/decisions/admission.md, "Freshness"). The same kind
 * of trigger as the clusters' (V51), so both signals are notified one way. H2: nothing to do (one process).
 */
public final class V52__notify_market_saves extends BaseJavaMigration {
    @Override
    public void migrate(Context context) throws SQLException {
        if (!"PostgreSQL".equals(context.getConnection().getMetaData().getDatabaseProductName())) {
            return;
        }
        try (Statement s = context.getConnection().createStatement()) {
            PostgresNotifyTrigger.create(s, "bc_notify_market_saved", "bc_market_saved", "INSERT OR UPDATE", "market_state");
        }
    }
}
