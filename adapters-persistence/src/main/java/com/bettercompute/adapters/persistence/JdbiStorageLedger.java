package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.StorageCharge;
import org.jdbi.v3.core.Jdbi;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * {@link StorageLedger} on {@code storage_charges}, whose primary key (volume, hour) makes an hour billable once:
 * {@code INSERT ... ON CONFLICT DO NOTHING} never fails on a replayed hour, and its row count says whether it was new.
 */
public final class JdbiStorageLedger implements StorageLedger {
    private static final List<String> COLUMNS = List.of("volume_id", "hour_start", "tenant_id", "cluster_id", "byte_seconds",
            "amount_usd", "recorded_at");
    private static final String INSERT = Db.insertSql("storage_charges", COLUMNS) + " ON CONFLICT DO NOTHING";
    private static final String SELECT = "SELECT " + String.join(", ", COLUMNS) + " FROM storage_charges";

    private final Db db;

    public JdbiStorageLedger(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public boolean record(StorageCharge c) {
        return db.call("recording a storage charge", h -> h.createUpdate(INSERT)
                .bind("volume_id", c.volumeId()).bind("hour_start", c.hourStart()).bind("tenant_id", c.tenantId())
                .bind("cluster_id", c.clusterId()).bind("byte_seconds", new BigDecimal(c.byteSeconds()))
                .bind("amount_usd", BigDecimal.valueOf(c.amount().micros(), 6)).bind("recorded_at", c.recordedAt())
                .execute() == 1);
    }

    @Override
    public Money chargedTo(String tenantId) {
        return sum("tenant_id", tenantId);
    }

    @Override
    public Money chargedFor(String volumeId) {
        return sum("volume_id", volumeId);
    }

    private Money sum(String column, String value) {
        return db.call("summing storage charges", h -> h.createQuery("SELECT COALESCE(SUM(amount_usd), 0) AS total FROM storage_charges WHERE "
                        + column + " = :v").bind("v", value)
                .map((rs, ctx) -> Money.ofMicros(rs.getBigDecimal("total").movePointRight(6).longValueExact())).one());
    }

    @Override
    public List<StorageCharge> forTenant(String tenantId, int limit) {
        return list(tenantId, limit, "hour_start, volume_id");
    }

    @Override
    public List<StorageCharge> latest(String tenantId, int limit) {
        return list(tenantId, limit, "hour_start DESC, volume_id");
    }

    private List<StorageCharge> list(String tenantId, int limit, String order) {
        if (limit <= 0) {
            return List.of();
        }
        return db.call("reading storage charges", h -> h.createQuery(SELECT + " WHERE tenant_id = :tenant_id ORDER BY " + order
                        + " LIMIT :limit").bind("tenant_id", tenantId).bind("limit", limit).map((rs, ctx) -> charge(rs)).list());
    }

    private static StorageCharge charge(ResultSet rs) throws SQLException {
        return new StorageCharge(rs.getString("volume_id"), Times.instant(rs, "hour_start"), rs.getString("tenant_id"),
                rs.getString("cluster_id"), rs.getBigDecimal("byte_seconds").toBigIntegerExact(),
                Money.ofMicros(rs.getBigDecimal("amount_usd").movePointRight(6).longValueExact()), Times.instant(rs, "recorded_at"));
    }
}
