package com.bettercompute.adapters.persistence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The work of migration V53: the market's billing cursors move back into their rows. Until then the tick wrote
 * every ready grant's cursor and every tenant's charged total each tick, as text in {@code market_billing}
 * ({@link BillingCursors}); since then a grant's cursor is saved when its ledger entry opens or closes and a
 * restored market bills it on to the last tick, and a tenant row keeps what its closed entries add up to
 * ({@code settled_micros}) rather than everything charged. This folds the text into the rows, turns each
 * charged total into the settled one (the charged total less what its grants' open entries accrued, which the
 * restored market adds again), renames the column and drops the text's table.
 */
public final class MarketBillingFold {
    private MarketBillingFold() {
    }

    public static void fold(Connection c) throws SQLException {
        List<String> chunks = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT cursors FROM market_billing ORDER BY chunk")) {
            while (rs.next()) {
                chunks.add(rs.getString(1));
            }
        }
        BillingCursors.Read read = BillingCursors.read(chunks);
        try (PreparedStatement grant = c.prepareStatement("UPDATE market_grants SET market_rate = ?, locked_in_force = ?,"
                + " billed_until = ?, entry_from = ?, entry_rate = ?, entry_locked = ?, entry_accrued = ?, carry = ?"
                + " WHERE id = ?")) {
            for (Map.Entry<String, BillingCursors.Cursor> e : read.grants().entrySet()) {
                BillingCursors.Cursor k = e.getValue();
                grant.setLong(1, k.marketRate());
                grant.setBoolean(2, k.lockedInForce());
                grant.setObject(3, Times.toColumn(k.billedUntil()));
                grant.setObject(4, Times.toColumn(k.entryFrom()));
                grant.setLong(5, k.entryRate());
                grant.setBoolean(6, k.entryLocked());
                grant.setLong(7, k.entryAccrued());
                grant.setLong(8, k.carry());
                grant.setString(9, e.getKey());
                grant.addBatch();
            }
            grant.executeBatch();
        }
        try (PreparedStatement tenant = c.prepareStatement("UPDATE market_tenants SET charged_micros = ? WHERE id = ?")) {
            for (Map.Entry<String, Long> e : read.tenants().entrySet()) {
                tenant.setLong(1, e.getValue());
                tenant.setString(2, e.getKey());
                tenant.addBatch();
            }
            tenant.executeBatch();
        }
        boolean postgres = "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE market_tenants SET charged_micros = charged_micros - COALESCE((SELECT"
                    + " SUM(g.entry_accrued) FROM market_grants g JOIN market_clusters k ON k.id = g.cluster_id"
                    + " WHERE k.tenant_id = market_tenants.id AND g.entry_from IS NOT NULL), 0)");
            s.execute(postgres ? "ALTER TABLE market_tenants RENAME COLUMN charged_micros TO settled_micros"
                    : "ALTER TABLE market_tenants ALTER COLUMN charged_micros RENAME TO settled_micros");
            s.execute("DROP TABLE market_billing");
        }
    }
}
