package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import org.jdbi.v3.core.Jdbi;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * {@link MarketLedger} on {@code market_charges}, whose primary key (grant, interval start) makes a charge
 * countable once, and {@code market_credits}, keyed by (tenant, idempotency key). Both insert with
 * {@code ON CONFLICT DO NOTHING} (PostgreSQL, and H2 in {@code MODE=PostgreSQL}): a replay writes nothing and
 * fails nothing, and the row count says what was new.
 */
public final class JdbiMarketLedger implements MarketLedger {
    private static final List<String> CHARGE = List.of("grant_id", "from_at", "to_at", "hour_start", "tenant_id",
            "cluster_id", "pool_id", "node_id", "rate_micros", "gpus", "amount_micros", "locked");

    private final Db db;

    public JdbiMarketLedger(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public int record(List<Charge> charges) {
        if (charges.isEmpty()) {
            return 0;
        }
        return db.inTransaction("recording market charges", h -> Db.insertRows(h, "market_charges", CHARGE,
                " ON CONFLICT DO NOTHING", charges, (s, p, c) -> {
                    s.setString(p, c.grantId());
                    s.setObject(p + 1, Times.toColumn(c.from()));
                    s.setObject(p + 2, Times.toColumn(c.to()));
                    s.setObject(p + 3, Times.toColumn(c.from().truncatedTo(ChronoUnit.HOURS)));
                    s.setString(p + 4, c.tenantId());
                    s.setString(p + 5, c.clusterId());
                    s.setString(p + 6, c.pool().toString());
                    s.setString(p + 7, c.nodeId());
                    s.setLong(p + 8, c.rate().micros());
                    s.setInt(p + 9, c.gpus());
                    s.setLong(p + 10, c.amount().micros());
                    s.setBoolean(p + 11, c.locked());
                }));
    }

    @Override
    public Money chargedTo(String tenantId) {
        return db.call("summing market charges", h -> Money.ofMicros(h.createQuery(
                        "SELECT COALESCE(SUM(amount_micros), 0) FROM market_charges WHERE tenant_id = :tenant_id")
                .bind("tenant_id", tenantId).mapTo(Long.class).one()));
    }

    @Override
    public List<Charge> latest(String tenantId, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return db.call("reading market charges", h -> h.createQuery("SELECT " + String.join(", ", CHARGE)
                        + " FROM market_charges WHERE tenant_id = :tenant_id ORDER BY from_at DESC, grant_id DESC"
                        + " LIMIT :limit")
                .bind("tenant_id", tenantId).bind("limit", limit).map((rs, ctx) -> charge(rs)).list());
    }

    @Override
    public List<HourlyCharge> hourly(String tenantId) {
        return db.call("summing market charges by hour", h -> h.createQuery(
                        "SELECT cluster_id, pool_id, hour_start, SUM(amount_micros) AS amount,"
                                + " SUM(gpus * billed_seconds) AS gpu_seconds FROM (SELECT cluster_id, pool_id, hour_start,"
                                + " amount_micros, gpus, (EXTRACT(EPOCH FROM to_at) - EXTRACT(EPOCH FROM from_at))"
                                + " AS billed_seconds FROM market_charges WHERE tenant_id = :tenant_id) c"
                                + " GROUP BY hour_start, cluster_id, pool_id ORDER BY hour_start, cluster_id, pool_id")
                .bind("tenant_id", tenantId)
                .map((rs, ctx) -> new HourlyCharge(rs.getString("cluster_id"), PoolId.parse(rs.getString("pool_id")),
                        Times.instant(rs, "hour_start"), Money.ofMicros(rs.getLong("amount")),
                        rs.getBigDecimal("gpu_seconds").longValue()))
                .list());
    }

    @Override
    public boolean credit(CreditTopUp topUp) {
        return db.call("recording a credit top-up", h -> h.createUpdate("INSERT INTO market_credits (tenant_id,"
                        + " idempotency_key, amount_micros, note, recorded_at) VALUES (:tenant_id, :idempotency_key,"
                        + " :amount_micros, :note, :recorded_at) ON CONFLICT DO NOTHING")
                .bind("tenant_id", topUp.tenantId()).bind("idempotency_key", topUp.idempotencyKey())
                .bind("amount_micros", topUp.amount().micros()).bind("note", topUp.note())
                .bindByType("recorded_at", topUp.at(), Instant.class).execute() == 1);
    }

    @Override
    public List<CreditTopUp> credits(String tenantId, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return db.call("reading credit top-ups", h -> h.createQuery("SELECT tenant_id, idempotency_key, amount_micros,"
                        + " note, recorded_at FROM market_credits WHERE tenant_id = :tenant_id"
                        + " ORDER BY recorded_at DESC, idempotency_key DESC LIMIT :limit")
                .bind("tenant_id", tenantId).bind("limit", limit)
                .map((rs, ctx) -> new CreditTopUp(rs.getString("tenant_id"), rs.getString("idempotency_key"),
                        Money.ofMicros(rs.getLong("amount_micros")), rs.getString("note"),
                        Times.instant(rs, "recorded_at")))
                .list());
    }

    private static Charge charge(ResultSet rs) throws SQLException {
        return new Charge(rs.getString("grant_id"), Times.instant(rs, "from_at"), Times.instant(rs, "to_at"),
                rs.getString("tenant_id"), rs.getString("cluster_id"), PoolId.parse(rs.getString("pool_id")),
                rs.getString("node_id"), Money.ofMicros(rs.getLong("rate_micros")), rs.getInt("gpus"),
                Money.ofMicros(rs.getLong("amount_micros")), rs.getBoolean("locked"));
    }
}
