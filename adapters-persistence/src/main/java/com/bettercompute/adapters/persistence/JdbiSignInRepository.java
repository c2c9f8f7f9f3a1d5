package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SignInRepository;
import org.jdbi.v3.core.Jdbi;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link SignInRepository} on {@code sign_in_devices} and {@code sign_in_refresh}: hashes only, never a code or token. */
public final class JdbiSignInRepository implements SignInRepository {
    private static final List<String> DEVICE = List.of("device_code_hash", "user_code_hash", "cluster_id", "created_at", "expires_at",
            "interval_seconds", "last_polled_at", "decision", "principal_id");
    private static final List<String> REFRESH = List.of("token_hash", "principal_id", "cluster_id", "last_used_at");

    private final Db db;

    public JdbiSignInRepository(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public void addDevice(DeviceGrant g) {
        db.call("adding a sign-in code", h -> h.createUpdate(Db.insertSql("sign_in_devices", DEVICE))
                .bind("device_code_hash", g.deviceCodeHash()).bind("user_code_hash", g.userCodeHash())
                .bind("cluster_id", g.clusterId()).bindByType("created_at", g.createdAt(), Instant.class)
                .bindByType("expires_at", g.expiresAt(), Instant.class).bind("interval_seconds", g.intervalSeconds())
                .bindByType("last_polled_at", g.lastPolledAt(), Instant.class).bind("decision", g.decision().name())
                .bind("principal_id", g.principalId()).execute());
    }

    @Override
    public Optional<DeviceGrant> deviceByCode(String deviceCodeHash) {
        return device("device_code_hash", deviceCodeHash);
    }

    @Override
    public Optional<DeviceGrant> deviceByUserCode(String userCodeHash) {
        return device("user_code_hash", userCodeHash);
    }

    private Optional<DeviceGrant> device(String column, String hash) {
        return db.call("reading a sign-in code", h -> h.createQuery("SELECT " + String.join(", ", DEVICE)
                        + " FROM sign_in_devices WHERE " + column + " = :hash")
                .bind("hash", hash).map((rs, ctx) -> device(rs)).findOne());
    }

    @Override
    public void polled(String deviceCodeHash, Instant at, int intervalSeconds) {
        db.call("noting a sign-in poll", h -> h.createUpdate("UPDATE sign_in_devices SET last_polled_at = :at,"
                        + " interval_seconds = :interval WHERE device_code_hash = :hash")
                .bindByType("at", at, Instant.class).bind("interval", intervalSeconds).bind("hash", deviceCodeHash).execute());
    }

    @Override
    public boolean decide(String deviceCodeHash, Decision decision, String principalId) {
        return db.call("deciding a sign-in code", h -> h.createUpdate("UPDATE sign_in_devices SET decision = :decision,"
                        + " principal_id = :principal WHERE device_code_hash = :hash AND decision = :pending")
                .bind("decision", decision.name()).bind("principal", principalId).bind("hash", deviceCodeHash)
                .bind("pending", Decision.PENDING.name()).execute()) == 1;
    }

    @Override
    public boolean removeDevice(String deviceCodeHash) {
        return db.call("removing a sign-in code", h -> h.createUpdate("DELETE FROM sign_in_devices WHERE device_code_hash = :hash")
                .bind("hash", deviceCodeHash).execute()) == 1;
    }

    @Override
    public void addRefresh(RefreshGrant g) {
        db.call("adding a refresh token", h -> h.createUpdate(Db.insertSql("sign_in_refresh", REFRESH))
                .bind("token_hash", g.tokenHash()).bind("principal_id", g.principalId()).bind("cluster_id", g.clusterId())
                .bindByType("last_used_at", g.lastUsedAt(), Instant.class).execute());
    }

    @Override
    public Optional<RefreshGrant> refreshByHash(String tokenHash) {
        return db.call("reading a refresh token", h -> h.createQuery("SELECT " + String.join(", ", REFRESH)
                        + " FROM sign_in_refresh WHERE token_hash = :hash")
                .bind("hash", tokenHash).map((rs, ctx) -> new RefreshGrant(rs.getString("token_hash"), rs.getString("principal_id"),
                        rs.getString("cluster_id"), Times.instant(rs, "last_used_at"))).findOne());
    }

    @Override
    public boolean removeRefresh(String tokenHash) {
        return db.call("removing a refresh token", h -> h.createUpdate("DELETE FROM sign_in_refresh WHERE token_hash = :hash")
                .bind("hash", tokenHash).execute()) == 1;
    }

    @Override
    public int removeStale(Instant devicesExpiredBefore, Instant refreshUnusedSince) {
        return db.inTransaction("removing stale sign-ins", h -> h.createUpdate("DELETE FROM sign_in_devices WHERE expires_at < :at")
                .bindByType("at", devicesExpiredBefore, Instant.class).execute()
                + h.createUpdate("DELETE FROM sign_in_refresh WHERE last_used_at < :at")
                .bindByType("at", refreshUnusedSince, Instant.class).execute());
    }

    private static DeviceGrant device(ResultSet rs) throws SQLException {
        return new DeviceGrant(rs.getString("device_code_hash"), rs.getString("user_code_hash"), rs.getString("cluster_id"),
                Times.instant(rs, "created_at"), Times.instant(rs, "expires_at"), rs.getInt("interval_seconds"),
                Times.instant(rs, "last_polled_at"), Decision.valueOf(rs.getString("decision")), rs.getString("principal_id"));
    }
}
