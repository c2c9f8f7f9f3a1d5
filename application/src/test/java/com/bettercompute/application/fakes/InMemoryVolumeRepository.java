package com.bettercompute.application.fakes;

import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeState;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** {@link VolumeRepository} on an {@link InMemoryStore}. */
public final class InMemoryVolumeRepository implements VolumeRepository {
    private static final Comparator<SharedVolume> OLDEST_FIRST = Comparator.comparing(SharedVolume::createdAt).thenComparing(SharedVolume::id);
    private final InMemoryStore store;

    public InMemoryVolumeRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public boolean insert(SharedVolume volume) {
        return store.locked(s -> {
            if (s.volumes.values().stream().anyMatch(v -> v.clusterId().equals(volume.clusterId())) || s.volumes.containsKey(volume.id())) {
                return false;
            }
            s.volumes.put(volume.id(), volume);
            return true;
        });
    }

    @Override
    public Optional<SharedVolume> find(String volumeId) {
        return store.locked(s -> Optional.ofNullable(s.volumes.get(volumeId)));
    }

    @Override
    public Optional<SharedVolume> forCluster(String clusterId) {
        return store.locked(s -> s.volumes.values().stream().filter(v -> v.clusterId().equals(clusterId)).findFirst());
    }

    @Override
    public List<SharedVolume> forTenant(String tenantId) {
        return store.locked(s -> s.volumes.values().stream()
                .filter(v -> v.tenantId().equals(tenantId) && v.state() != VolumeState.DELETED).sorted(OLDEST_FIRST).toList());
    }

    @Override
    public boolean update(SharedVolume volume, long expectedVersion) {
        return store.locked(s -> {
            SharedVolume current = s.volumes.get(volume.id());
            if (current == null || current.version() != expectedVersion) {
                return false;
            }
            s.volumes.put(volume.id(), volume);
            return true;
        });
    }

    @Override
    public List<String> due(Instant now, int limit) {
        return store.locked(s -> s.volumes.values().stream()
                .filter(v -> v.state() == VolumeState.ATTACHED || v.state() == VolumeState.PRESERVED || v.state() == VolumeState.DELETING)
                .filter(v -> v.progress().nextAttemptAt() == null || !v.progress().nextAttemptAt().isAfter(now))
                .sorted(OLDEST_FIRST).limit(limit).map(SharedVolume::id).toList());
    }
}
