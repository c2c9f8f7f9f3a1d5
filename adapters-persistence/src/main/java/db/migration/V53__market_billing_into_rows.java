package db.migration;

import com.bettercompute.adapters.persistence.MarketBillingFold;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

import java.sql.SQLException;

/**
 * The billing text of {@code market_billing} (V35, V50) folded back into the grant and tenant rows, the tenants'
 * charged totals turned into settled ones, the text's table dropped ({@link MarketBillingFold}). A Java migration:
 * the text is read with the code that wrote it, on both engines.
 */
public final class V53__market_billing_into_rows extends BaseJavaMigration {
    @Override
    public void migrate(Context context) throws SQLException {
        MarketBillingFold.fold(context.getConnection());
    }
}
