package com.bettercompute.application.fakes;

import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.event.StoredEvent;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** {@link ClusterRepository} on an {@link InMemoryStore}; the same contract test runs against it and the database. */
public final class InMemoryClusterRepository implements ClusterRepository {
    static final Comparator<Cluster> OLDEST_FIRST = Comparator.comparing(Cluster::createdAt).thenComparing(Cluster::id);

    private final InMemoryStore store;

    public InMemoryClusterRepository(InMemoryStore store) {
        this.store = store;
    }

    @Override
    public Optional<Cluster> find(String clusterId) {
        return store.locked(s -> Optional.ofNullable(s.clusters.get(clusterId)));
    }

    @Override
    public List<Cluster> list(ClusterFilter filter, int limit) {
        return store.locked(s -> s.clusters.values().stream()
                .filter(c -> filter.tenantId() == null || filter.tenantId().equals(c.tenantId()))
                .filter(c -> filter.poolId() == null || filter.poolId().equals(c.poolId()))
                .filter(c -> filter.projectId() == null || filter.projectId().equals(c.projectId()))
                .filter(c -> filter.includeDeleted() || !c.deleted())
                .sorted(OLDEST_FIRST)
                .limit(Math.max(0, limit))
                .toList());
    }

    @Override
    public int countNotDeleted(String tenantId) {
        return store.locked(s -> (int) s.clusters.values().stream()
                .filter(c -> c.tenantId().equals(tenantId) && !c.deleted())
                .count());
    }

    @Override
    public boolean nameInUse(String tenantId, String name) {
        return store.locked(s -> nameTaken(s.clusters, tenantId, name, null));
    }

    /**
     * Transactions of the fakes are serialized, so holding the transaction is holding every tenant's lock: the checks
     * and the writes are one step, in the caller's transaction when there is one.
     */
    @Override
    public Insertion insert(NewCluster n) {
        Cluster cluster = n.cluster();
        return store.transaction(() -> store.locked(s -> {
            if (!s.tenants.containsKey(cluster.tenantId())) {
                return new Insertion.NoTenant();
            }
            Cluster earlier = s.clusters.get(cluster.id());
            if (earlier != null) {
                return new Insertion.AlreadyStored(earlier);
            }
            if (!cluster.deleted() && nameTaken(s.clusters, cluster.tenantId(), cluster.name(), null)) {
                return new Insertion.NameInUse();
            }
            if (countNotDeleted(cluster.tenantId()) >= n.maxClusters()) {
                return new Insertion.OverQuota(n.maxClusters());
            }
            s.clusters.put(cluster.id(), withPoolsOldestFirst(cluster));
            s.owners.put(cluster.id(), n.ownerId());
            s.events.add(new StoredEvent(++s.lastSequence, n.event()));
            return new Insertion.Inserted(cluster);
        }));
    }

    /**
     * Stores the cluster as it is, with no owner, event or check of the tenant: for a test to arrange clusters in any
     * state. A second cluster with the same id, or with the name of one of the tenant's clusters that is not deleted, is
     * {@code CONFLICT}, as the database's constraints refuse it.
     */
    public void insert(Cluster cluster) {
        store.lockedRun(s -> {
            if (s.clusters.containsKey(cluster.id())) {
                throw new DomainException(ErrorCode.CONFLICT, "A cluster with this id already exists.",
                        Map.of("id", cluster.id()));
            }
            if (!cluster.deleted() && nameTaken(s.clusters, cluster.tenantId(), cluster.name(), null)) {
                throw nameConflict(cluster);
            }
            s.clusters.put(cluster.id(), withPoolsOldestFirst(cluster));
        });
    }

    @Override
    public boolean update(Cluster cluster, long expectedVersion) {
        return store.locked(s -> {
            Cluster stored = s.clusters.get(cluster.id());
            if (stored == null || stored.version() != expectedVersion) {
                return false;
            }
            if (!cluster.deleted() && nameTaken(s.clusters, cluster.tenantId(), cluster.name(), cluster.id())) {
                throw nameConflict(cluster);
            }
            s.clusters.put(cluster.id(), withPoolsOldestFirst(cluster));
            return true;
        });
    }

    @Override
    public boolean updateRequest(Cluster cluster, long expectedVersion) {
        return store.locked(s -> {
            Cluster stored = s.clusters.get(cluster.id());
            if (stored == null || stored.version() != expectedVersion) {
                return false;
            }
            Cluster.Progress kept = stored.progress();
            Cluster.Progress asked = cluster.progress();
            return update(cluster.toBuilder().progress(new Cluster.Progress(asked.deleteRequestedAt(), kept.providerAcceptedAt(),
                    kept.pendingAction(), kept.failures(), asked.nextAttemptAt(), kept.caCertificate(), kept.operation(),
                    kept.identityServiceRefusedAt())).build(),
                    expectedVersion);
        });
    }

    @Override
    public List<String> due(Instant now, String owner, int limit) {
        return store.locked(s -> s.clusters.values().stream()
                .filter(c -> !c.deleted())
                .filter(c -> c.progress().nextAttemptAt() == null || !c.progress().nextAttemptAt().isAfter(now))
                .filter(c -> free(s.leases.get(c.id()), now) || s.leases.get(c.id()).owner().equals(owner))
                .sorted(Comparator.comparing(InMemoryClusterRepository::waitingSince).thenComparing(Cluster::id))
                .limit(Math.max(0, limit))
                .map(Cluster::id)
                .toList());
    }

    @Override
    public boolean claim(String clusterId, String owner, Instant now, Instant until) {
        return store.locked(s -> {
            InMemoryStore.Lease lease = s.leases.get(clusterId);
            if (!s.clusters.containsKey(clusterId) || !(free(lease, now) || lease.owner().equals(owner))) {
                return false;
            }
            s.leases.put(clusterId, new InMemoryStore.Lease(owner, until));
            return true;
        });
    }

    @Override
    public void release(String clusterId, String owner) {
        store.lockedRun(s -> {
            InMemoryStore.Lease lease = s.leases.get(clusterId);
            if (lease != null && lease.owner().equals(owner)) {
                s.leases.remove(clusterId);
            }
        });
    }

    /** Free, or expired at {@code now} (held until an instant before it). */
    private static boolean free(InMemoryStore.Lease lease, Instant now) {
        return lease == null || lease.until().isBefore(now);
    }

    /** The due queue's order: when the cluster asked to be looked at, or when it was created. */
    private static Instant waitingSince(Cluster c) {
        return c.progress().nextAttemptAt() == null ? c.createdAt() : c.progress().nextAttemptAt();
    }

    private static boolean nameTaken(Map<String, Cluster> clusters, String tenantId, String name, String exceptId) {
        return clusters.values().stream().anyMatch(c -> c.tenantId().equals(tenantId) && c.name().equals(name)
                && !c.deleted() && !Objects.equals(c.id(), exceptId));
    }

    private static DomainException nameConflict(Cluster cluster) {
        return new DomainException(ErrorCode.CONFLICT, "The tenant already has a cluster with this name.",
                Map.of("name", cluster.name()));
    }

    /** The database returns node pools oldest first, keeping the given order among equals; so does the fake. */
    private static Cluster withPoolsOldestFirst(Cluster c) {
        List<NodePool> sorted = c.nodePools().stream().sorted(Comparator.comparing(NodePool::createdAt)).toList();
        return sorted.equals(c.nodePools()) ? c : c.toBuilder().nodePools(sorted).build();
    }
}
