package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageMeter;
import com.bettercompute.domain.volume.VolumeState;
import org.jdbi.v3.core.Jdbi;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@link VolumeRepository} on {@code shared_volumes}. The unique cluster id makes a second volume for one cluster
 * impossible: {@code INSERT ... ON CONFLICT DO NOTHING} (PostgreSQL, and H2 in {@code MODE=PostgreSQL}) says by its row
 * count whether this insert was the first. Updates are guarded by the row's version.
 */
public final class JdbiVolumeRepository implements VolumeRepository {
    private static final List<String> COLUMNS = List.of("id", "tenant_id", "cluster_id", "cluster_name", "provider_account_id",
            "region", "location", "storage_name", "path", "size_gib", "state", "message", "delete_with_cluster", "bytes_held",
            "sampled_at", "meter_sample_at", "meter_bytes", "meter_hour", "meter_byte_millis", "pending_action", "pending_operation",
            "failures", "next_attempt_at", "delete_accepted_at", "version", "created_at", "updated_at", "deleted_at");
    private static final String SELECT = "SELECT " + String.join(", ", COLUMNS) + " FROM shared_volumes";
    private static final String INSERT = Db.insertSql("shared_volumes", COLUMNS) + " ON CONFLICT DO NOTHING";
    private static final String UPDATE = "UPDATE shared_volumes SET "
            + Db.assignments(COLUMNS.stream().filter(c -> !c.equals("id")).toList()) + " WHERE id = :id AND version = :expected";
    /** The states the volume loop looks after. */
    private static final String LOOKED_AFTER = "('attached', 'preserved', 'deleting')";

    private final Db db;

    public JdbiVolumeRepository(Jdbi jdbi) {
        this.db = new Db(jdbi);
    }

    @Override
    public boolean insert(SharedVolume v) {
        return db.call("recording a shared volume", h -> h.createUpdate(INSERT).bindMap(row(v)).execute() == 1);
    }

    @Override
    public Optional<SharedVolume> find(String volumeId) {
        return db.call("reading a shared volume", h -> h.createQuery(SELECT + " WHERE id = :id").bind("id", volumeId)
                .map((rs, ctx) -> volume(rs)).findOne());
    }

    @Override
    public Optional<SharedVolume> forCluster(String clusterId) {
        return db.call("reading a cluster's shared volume", h -> h.createQuery(SELECT + " WHERE cluster_id = :cluster_id")
                .bind("cluster_id", clusterId).map((rs, ctx) -> volume(rs)).findOne());
    }

    @Override
    public List<SharedVolume> forTenant(String tenantId) {
        return db.call("listing shared volumes", h -> h.createQuery(SELECT
                        + " WHERE tenant_id = :tenant_id AND state <> 'deleted' ORDER BY created_at, id")
                .bind("tenant_id", tenantId).map((rs, ctx) -> volume(rs)).list());
    }

    @Override
    public boolean update(SharedVolume v, long expectedVersion) {
        return db.call("saving a shared volume", h -> h.createUpdate(UPDATE).bindMap(row(v)).bind("expected", expectedVersion)
                .execute() == 1);
    }

    @Override
    public List<String> due(Instant now, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return db.call("finding the volumes due", h -> h.createQuery("SELECT id FROM shared_volumes WHERE state IN " + LOOKED_AFTER
                        + " AND (next_attempt_at IS NULL OR next_attempt_at <= :now) ORDER BY created_at, id LIMIT :limit")
                .bind("now", now).bind("limit", limit).mapTo(String.class).list());
    }

    private static Map<String, Object> row(SharedVolume v) {
        StorageMeter m = v.meter();
        SharedVolume.Progress p = v.progress();
        java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
        row.put("id", v.id());
        row.put("tenant_id", v.tenantId());
        row.put("cluster_id", v.clusterId());
        row.put("cluster_name", v.clusterName());
        row.put("provider_account_id", v.providerAccountId());
        row.put("region", v.region());
        row.put("location", v.location());
        row.put("storage_name", v.storageName());
        row.put("path", v.path());
        row.put("size_gib", v.sizeGiB());
        row.put("state", v.state().wire());
        row.put("message", v.message());
        row.put("delete_with_cluster", v.deleteWithCluster());
        row.put("bytes_held", v.bytesHeld());
        row.put("sampled_at", v.sampledAt());
        row.put("meter_sample_at", m == null ? null : m.lastSampleAt());
        row.put("meter_bytes", m == null ? null : m.lastBytes());
        row.put("meter_hour", m == null ? null : m.hourStart());
        row.put("meter_byte_millis", m == null ? null : new BigDecimal(m.byteMillis()));
        row.put("pending_action", p.pendingAction());
        row.put("pending_operation", p.operation());
        row.put("failures", p.failures());
        row.put("next_attempt_at", p.nextAttemptAt());
        row.put("delete_accepted_at", p.deleteAcceptedAt());
        row.put("version", v.version());
        row.put("created_at", v.createdAt());
        row.put("updated_at", v.updatedAt());
        row.put("deleted_at", v.deletedAt());
        return row;
    }

    private static SharedVolume volume(ResultSet rs) throws SQLException {
        Instant meterAt = Times.instant(rs, "meter_sample_at");
        StorageMeter meter = meterAt == null ? null : new StorageMeter(meterAt, rs.getLong("meter_bytes"), Times.instant(rs, "meter_hour"),
                rs.getBigDecimal("meter_byte_millis").toBigIntegerExact());
        long bytes = rs.getLong("bytes_held");
        Long bytesHeld = rs.wasNull() ? null : bytes;
        return new SharedVolume(rs.getString("id"), rs.getString("tenant_id"), rs.getString("cluster_id"), rs.getString("cluster_name"),
                rs.getString("provider_account_id"), rs.getString("region"), rs.getString("location"), rs.getString("storage_name"),
                rs.getString("path"), rs.getInt("size_gib"), VolumeState.valueOf(rs.getString("state").toUpperCase(Locale.ROOT)),
                rs.getString("message"), rs.getBoolean("delete_with_cluster"), bytesHeld, Times.instant(rs, "sampled_at"), meter,
                new SharedVolume.Progress(rs.getString("pending_action"), rs.getString("pending_operation"), rs.getInt("failures"),
                        Times.instant(rs, "next_attempt_at"), Times.instant(rs, "delete_accepted_at")),
                rs.getLong("version"), Times.instant(rs, "created_at"), Times.instant(rs, "updated_at"), Times.instant(rs, "deleted_at"));
    }
}
