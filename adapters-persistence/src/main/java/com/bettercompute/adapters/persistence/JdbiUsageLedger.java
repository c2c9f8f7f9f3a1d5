package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.domain.usage.UsageRecord;
import org.jdbi.v3.core.Jdbi;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * {@link UsageLedger} on {@code usage_records}, whose primary key {@code (cluster_id, hour_start)} makes
 * an hour countable once. {@code INSERT ... ON CONFLICT DO NOTHING} (PostgreSQL, and H2 in
 * {@code MODE=PostgreSQL}) writes a record unless one is there, and never fails on a duplicate, not even
 * when another transaction inserts the same hour at the same moment: the row count says which one won.
 */
public final class JdbiUsageLedger implements UsageLedger {
    private static final List<String> COLUMNS =
            List.of("cluster_id", "hour_start", "kind", "tenant_id", "quantity", "recorded_at");
    private static final String INSERT = Db.insertSql("usage_records", COLUMNS) + " ON CONFLICT DO NOTHING";
    private static final String SELECT = "SELECT " + String.join(", ", COLUMNS) + " FROM usage_records";

    private final Db db;

    public JdbiUsageLedger(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public boolean record(UsageRecord usage) {
        return db.call("recording usage", h -> h.createUpdate(INSERT)
                .bind("cluster_id", usage.clusterId())
                .bind("hour_start", usage.hourStart())
                .bind("kind", usage.kind())
                .bind("tenant_id", usage.tenantId())
                .bind("quantity", usage.quantity())
                .bind("recorded_at", usage.recordedAt())
                .execute() == 1);
    }

    @Override
    public Optional<Instant> lastHour(String clusterId) {
        return db.call("reading the last usage hour", h -> h.createQuery(
                        "SELECT MAX(hour_start) AS last_hour FROM usage_records WHERE cluster_id = :cluster_id")
                .bind("cluster_id", clusterId)
                .map((rs, ctx) -> Optional.ofNullable(Times.instant(rs, "last_hour"))).one());
    }

    @Override
    public List<UsageRecord> forTenant(String tenantId, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return db.call("reading usage", h -> h.createQuery(
                        SELECT + " WHERE tenant_id = :tenant_id ORDER BY hour_start, cluster_id LIMIT :limit")
                .bind("tenant_id", tenantId).bind("limit", limit)
                .map((rs, ctx) -> usage(rs)).list());
    }

    private static UsageRecord usage(ResultSet rs) throws SQLException {
        return new UsageRecord(
                rs.getString("kind"),
                rs.getString("tenant_id"),
                rs.getString("cluster_id"),
                Times.instant(rs, "hour_start"),
                JdbiCatalogRepository.money(rs.getBigDecimal("quantity")),
                Times.instant(rs, "recorded_at"));
    }
}
