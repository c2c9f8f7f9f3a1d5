package db.migration;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * {@code market_billing.cursors} (V35) stored without compression on PostgreSQL: the tick rewrites about a
 * megabyte of it every five seconds, and compressing it (PostgreSQL's default for long text) took about three
 * times as long as writing it uncompressed (measured when billing text was written every tick). The rows are
 * short-lived, so the space compression saves is not worth the time. H2 has no such setting and needs none.
 * A Java migration because the statement is PostgreSQL's alone and the SQL migrations run on both engines.
 */
public final class V50__market_billing_uncompressed extends BaseJavaMigration {
    @Override
    public void migrate(Context context) throws SQLException {
        if (!"PostgreSQL".equals(context.getConnection().getMetaData().getDatabaseProductName())) {
            return;
        }
        try (Statement s = context.getConnection().createStatement()) {
            s.execute("ALTER TABLE market_billing ALTER COLUMN cursors SET STORAGE EXTERNAL");
        }
    }
}
