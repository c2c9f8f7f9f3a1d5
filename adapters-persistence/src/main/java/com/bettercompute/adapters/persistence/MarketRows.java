package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.MarketSnapshot.ClusterState;
import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.MarketSnapshot.NodeState;
import com.bettercompute.domain.market.MarketSnapshot.RequestState;
import com.bettercompute.domain.market.MarketSnapshot.TenantState;
import com.bettercompute.domain.market.MarketTimings;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PriorityClass;
import com.bettercompute.domain.market.Reason;
import com.bettercompute.domain.market.ReplacementClaim;
import com.bettercompute.domain.market.RequestPhase;
import com.fasterxml.jackson.core.type.TypeReference;
import org.jdbi.v3.core.statement.SqlStatement;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The market's rows: each entity of a {@link MarketSnapshot} to the columns of its table (V30 migration)
 * and back. Money goes as micro-dollars, instants to the microsecond, the short ordered id lists as JSON.
 */
final class MarketRows {
    private static final TypeReference<List<String>> IDS = new TypeReference<>() {};
    private static final TypeReference<List<ReplacementClaim>> CLAIMS = new TypeReference<>() {};
    private static final TypeReference<List<MarketEvent>> EVENTS = new TypeReference<>() {};

    static final List<String> STATE = List.of("last_tick", "request_sequence", "grant_sequence", "next_ord",
            "minimum_hold", "protection", "notice", "idle_grace", "balance_horizon", "billing_period", "eviction_grace",
            "between_ticks_json");
    static final List<String> POOL = List.of("id", "gpus_per_node", "reserve_micros", "last_price_micros",
            "reclaiming_json", "draining_json");
    static final List<String> NODE = List.of("id", "pool_id", "in_service", "block_cluster_id", "seated_gpus",
            "draining_until", "lost_grant_json", "block_ready_at");
    static final List<String> TENANT = List.of("id", "ord", "credits_micros", "settled_micros");
    static final List<String> CLUSTER = List.of("id", "ord", "tenant_id", "max_gpus", "limit_micros", "used_gpus",
            "queue_json", "block_waiting_json", "claims_json", "packing", "limit_set_at");
    /** The columns of an open request that its state sets (not the episode's own: running, ended). */
    static final List<String> REQUEST = List.of("request_seq", "id", "job_id", "attempt", "cluster_id", "pool_id",
            "gpus", "nodes", "priority", "created_at", "job_limit_micros", "phase", "reason", "message",
            "grant_ids_json", "locked_rate_micros", "protected_until", "start_limit", "notice_deadline", "provisioned",
            "block_node_id", "market_rate", "locked_in_force");
    static final List<String> GRANT = List.of("id", "ord", "idle_ord", "node_id", "pool_id", "cluster_id", "gpus",
            "locked_rate_micros", "granted_at", "ready_at", "hold_until", "protected_until", "replacement", "request_id",
            "idle_since", "market_rate", "locked_in_force", "billed_until", "ends_at", "entry_from", "entry_rate",
            "entry_locked", "entry_accrued", "carry");

    private MarketRows() {}

    // ---------------------------------------------------------------- binding

    static <S extends SqlStatement<S>> S bindState(S s, MarketSnapshot m, long nextOrd) {
        MarketTimings t = m.timings();
        return s.bindByType("last_tick", m.lastTick(), Instant.class)
                .bind("request_sequence", m.sequence()).bind("grant_sequence", m.grantSequence())
                .bind("next_ord", nextOrd)
                .bind("minimum_hold", t.minimumHold().toString()).bind("protection", t.protection().toString())
                .bind("notice", t.notice().toString()).bind("idle_grace", t.idleGrace().toString())
                .bind("balance_horizon", t.balanceHorizon().toString())
                .bind("billing_period", t.billingPeriod().toString())
                .bind("eviction_grace", t.evictionGrace().toString())
                .bind("between_ticks_json", Json.write(m.betweenTicks(), EVENTS));
    }

    static <S extends SqlStatement<S>> S bindPool(S s, MarketSnapshot.PoolState p) {
        return s.bind("id", p.id().toString()).bind("gpus_per_node", p.gpusPerNode())
                .bind("reserve_micros", p.reserve().micros())
                .bindByType("last_price_micros", micros(p.lastPrice()), Long.class)
                .bind("reclaiming_json", Json.write(p.reclaimingIds()))
                .bind("draining_json", Json.write(p.drainingIds()));
    }

    static <S extends SqlStatement<S>> S bindNode(S s, PoolId pool, NodeState n) {
        return s.bind("id", n.id()).bind("pool_id", pool.toString()).bind("in_service", n.inService())
                .bind("block_cluster_id", n.blockClusterId()).bind("seated_gpus", n.seatedGpus())
                .bindByType("draining_until", n.drainingUntil(), Instant.class)
                .bind("lost_grant_json", n.lostGrant() == null ? null : Json.write(n.lostGrant()))
                .bindByType("block_ready_at", n.blockReadyAt(), Instant.class);
    }

    static <S extends SqlStatement<S>> S bindTenant(S s, TenantState t, long ord) {
        return s.bind("id", t.id()).bind("ord", ord).bind("credits_micros", t.creditsMicros())
                .bind("settled_micros", t.settledMicros());
    }

    static <S extends SqlStatement<S>> S bindCluster(S s, ClusterState c, long ord) {
        return s.bind("id", c.id()).bind("ord", ord).bind("tenant_id", c.tenantId()).bind("max_gpus", c.maxGpus())
                .bindByType("limit_micros", micros(c.limit()), Long.class).bind("used_gpus", c.usedGpus())
                .bind("queue_json", Json.write(c.queueIds()))
                .bind("block_waiting_json", Json.write(c.blockWaitingIds()))
                .bind("claims_json", Json.write(c.claims()))
                .bind("packing", c.packing()).bindByType("limit_set_at", c.limitSetAt(), Instant.class);
    }

    static <S extends SqlStatement<S>> S bindRequest(S s, RequestState r) {
        return s.bind("request_seq", r.sequence()).bind("id", r.id()).bind("job_id", r.jobId())
                .bind("attempt", r.attempt()).bind("cluster_id", r.clusterId()).bind("pool_id", r.pool().toString())
                .bind("gpus", r.gpus()).bind("nodes", r.nodes()).bind("priority", r.priority().name())
                .bindByType("created_at", r.createdAt(), Instant.class)
                .bindByType("job_limit_micros", micros(r.jobLimit()), Long.class)
                .bind("phase", r.phase().name()).bind("reason", r.reason().name()).bind("message", r.message())
                .bind("grant_ids_json", Json.write(r.grantIds()))
                .bindByType("locked_rate_micros", micros(r.lockedRate()), Long.class)
                .bindByType("protected_until", r.protectedUntil(), Instant.class)
                .bind("start_limit", r.startLimit())
                .bindByType("notice_deadline", r.noticeDeadline(), Instant.class)
                .bind("provisioned", r.provisioned()).bind("block_node_id", r.blockNodeId())
                .bind("market_rate", r.marketRate()).bind("locked_in_force", r.lockedInForce());
    }

    static <S extends SqlStatement<S>> S bindGrant(S s, GrantState g, long ord, Long idleOrd) {
        return s.bind("id", g.id()).bind("ord", ord).bindByType("idle_ord", idleOrd, Long.class)
                .bind("node_id", g.nodeId()).bind("pool_id", g.pool().toString()).bind("cluster_id", g.clusterId())
                .bind("gpus", g.gpus()).bind("locked_rate_micros", g.lockedRate().micros())
                .bindByType("granted_at", g.grantedAt(), Instant.class)
                .bindByType("ready_at", g.readyAt(), Instant.class)
                .bindByType("hold_until", g.holdUntil(), Instant.class)
                .bindByType("protected_until", g.protectedUntil(), Instant.class)
                .bind("replacement", g.replacement()).bind("request_id", g.requestId())
                .bindByType("idle_since", g.idleSince(), Instant.class)
                .bind("market_rate", g.marketRate()).bind("locked_in_force", g.lockedInForce())
                .bindByType("billed_until", g.billedUntil(), Instant.class)
                .bindByType("ends_at", g.endsAt(), Instant.class)
                .bindByType("entry_from", g.entryFrom(), Instant.class)
                .bind("entry_rate", g.entryRate()).bind("entry_locked", g.entryLocked())
                .bind("entry_accrued", g.entryAccrued()).bind("carry", g.carry());
    }

    // ---------------------------------------------------------------- reading

    static MarketTimings timings(ResultSet rs) throws SQLException {
        return new MarketTimings(Duration.parse(rs.getString("minimum_hold")), Duration.parse(rs.getString("protection")),
                Duration.parse(rs.getString("notice")), Duration.parse(rs.getString("idle_grace")),
                Duration.parse(rs.getString("balance_horizon")), Duration.parse(rs.getString("billing_period")),
                Duration.parse(rs.getString("eviction_grace")));
    }

    static List<MarketEvent> events(String json) {
        return json == null ? List.of() : Json.read(json, EVENTS);
    }

    /** A pool without its nodes (the caller adds them). */
    static MarketSnapshot.PoolState pool(ResultSet rs, List<NodeState> nodes) throws SQLException {
        return new MarketSnapshot.PoolState(PoolId.parse(rs.getString("id")), rs.getInt("gpus_per_node"),
                Money.ofMicros(rs.getLong("reserve_micros")), money(rs, "last_price_micros"), nodes,
                Json.read(rs.getString("reclaiming_json"), IDS), Json.read(rs.getString("draining_json"), IDS));
    }

    static NodeState node(ResultSet rs) throws SQLException {
        String lost = rs.getString("lost_grant_json");
        return new NodeState(rs.getString("id"), rs.getBoolean("in_service"), rs.getString("block_cluster_id"),
                rs.getInt("seated_gpus"), lost == null ? null : Json.read(lost, GrantState.class),
                Times.instant(rs, "draining_until"), Times.instant(rs, "block_ready_at"));
    }

    static TenantState tenant(ResultSet rs) throws SQLException {
        return new TenantState(rs.getString("id"), rs.getLong("credits_micros"), rs.getLong("settled_micros"));
    }

    static ClusterState cluster(ResultSet rs) throws SQLException {
        return new ClusterState(rs.getString("id"), rs.getString("tenant_id"), rs.getLong("max_gpus"),
                money(rs, "limit_micros"), rs.getLong("used_gpus"), Json.read(rs.getString("queue_json"), IDS),
                Json.read(rs.getString("block_waiting_json"), IDS), Json.read(rs.getString("claims_json"), CLAIMS),
                rs.getBoolean("packing"), Times.instant(rs, "limit_set_at"));
    }

    static RequestState request(ResultSet rs) throws SQLException {
        return new RequestState(rs.getString("id"), rs.getString("job_id"), rs.getInt("attempt"),
                rs.getString("cluster_id"), PoolId.parse(rs.getString("pool_id")), rs.getInt("gpus"), rs.getInt("nodes"),
                PriorityClass.valueOf(rs.getString("priority")), rs.getLong("request_seq"),
                Times.instant(rs, "created_at"), money(rs, "job_limit_micros"),
                RequestPhase.valueOf(rs.getString("phase")), Reason.valueOf(rs.getString("reason")),
                rs.getString("message"), Json.read(rs.getString("grant_ids_json"), IDS), money(rs, "locked_rate_micros"),
                Times.instant(rs, "protected_until"), rs.getLong("start_limit"), Times.instant(rs, "notice_deadline"),
                rs.getBoolean("provisioned"), rs.getString("block_node_id"), rs.getLong("market_rate"),
                rs.getBoolean("locked_in_force"));
    }

    static GrantState grant(ResultSet rs) throws SQLException {
        return new GrantState(rs.getString("id"), rs.getString("node_id"), PoolId.parse(rs.getString("pool_id")),
                rs.getString("cluster_id"), rs.getInt("gpus"), Money.ofMicros(rs.getLong("locked_rate_micros")),
                Times.instant(rs, "granted_at"), Times.instant(rs, "ready_at"), Times.instant(rs, "hold_until"),
                Times.instant(rs, "protected_until"), rs.getBoolean("replacement"), rs.getString("request_id"),
                Times.instant(rs, "idle_since"), rs.getLong("market_rate"), rs.getBoolean("locked_in_force"),
                Times.instant(rs, "billed_until"), Times.instant(rs, "ends_at"), Times.instant(rs, "entry_from"),
                rs.getLong("entry_rate"), rs.getBoolean("entry_locked"), rs.getLong("entry_accrued"),
                rs.getLong("carry"));
    }

    static Long micros(Money m) {
        return m == null ? null : m.micros();
    }

    static Money money(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Money.ofMicros(v);
    }
}
