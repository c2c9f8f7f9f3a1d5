package com.bettercompute.application.port;

import com.bettercompute.domain.volume.SharedVolume;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Shared volumes, one per cluster at most. Writes take part in the caller's transaction. */
public interface VolumeRepository {

    /**
     * Stores a new volume. False (nothing written) when the cluster has one already: the id derives from the cluster,
     * so a pass replayed after a crash finds the volume it recorded.
     */
    boolean insert(SharedVolume volume);

    Optional<SharedVolume> find(String volumeId);

    /** The volume made with this cluster, whatever its state. */
    Optional<SharedVolume> forCluster(String clusterId);

    /** The tenant's volumes that are not deleted, oldest first (then by id). */
    List<SharedVolume> forTenant(String tenantId);

    /**
     * Replaces the volume if its stored revision is still {@code expectedVersion}; false (nothing written) when
     * another writer changed it first.
     */
    boolean update(SharedVolume volume, long expectedVersion);

    /**
     * Ids of the volumes the volume loop looks after (neither deleted nor still being made with their cluster), whose
     * next look is due at {@code now} (or that have none), oldest first, at most {@code limit}.
     */
    List<String> due(Instant now, int limit);
}
