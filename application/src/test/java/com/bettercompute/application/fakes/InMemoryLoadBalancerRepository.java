package com.bettercompute.application.fakes;

import com.bettercompute.application.port.LoadBalancerRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.loadbalancer.LoadBalancer;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Load balancer rows in the shared in-memory store: they roll back with the store's transactions. */
public final class InMemoryLoadBalancerRepository implements LoadBalancerRepository {
    private static final Comparator<LoadBalancer> ORDER = Comparator.comparing(LoadBalancer::clusterId)
            .thenComparing(LoadBalancer::createdAt).thenComparing(LoadBalancer::serviceUid);
    private final InMemoryStore store;

    public InMemoryLoadBalancerRepository(InMemoryStore store) {
        this.store = store;
    }

    private static String key(String clusterId, String uid) {
        return clusterId + "\n" + uid;
    }

    @Override
    public Optional<LoadBalancer> find(String clusterId, String serviceUid) {
        return store.locked(s -> Optional.ofNullable(s.loadBalancers.get(key(clusterId, serviceUid))));
    }

    @Override
    public List<LoadBalancer> ofCluster(String clusterId) {
        return store.locked(s -> s.loadBalancers.values().stream().filter(r -> r.clusterId().equals(clusterId)).sorted(ORDER).toList());
    }

    @Override
    public List<LoadBalancer> all() {
        return store.locked(s -> s.loadBalancers.values().stream().sorted(ORDER).toList());
    }

    @Override
    public List<String> clusters() {
        return store.locked(s -> s.loadBalancers.values().stream().map(LoadBalancer::clusterId).distinct().sorted().toList());
    }

    @Override
    public int holdingInCluster(String clusterId) {
        return store.locked(s -> (int) s.loadBalancers.values().stream()
                .filter(r -> r.clusterId().equals(clusterId) && r.state().holds()).count());
    }

    @Override
    public int holdingInRegion(String region) {
        return store.locked(s -> (int) s.loadBalancers.values().stream()
                .filter(r -> r.region().equals(region) && r.state().holds()).count());
    }

    @Override
    public void lockRegion(String region) {
        // every transaction of the store runs alone
    }

    @Override
    public void insert(LoadBalancer row) {
        store.lockedRun(s -> {
            Map<String, LoadBalancer> rows = s.loadBalancers;
            String key = key(row.clusterId(), row.serviceUid());
            if (rows.containsKey(key)) {
                throw new DomainException(ErrorCode.CONFLICT, "a load balancer of that Service exists", Map.of());
            }
            rows.put(key, row.withVersion(0));
        });
    }

    @Override
    public boolean update(LoadBalancer row, long expectedVersion) {
        return store.locked(s -> {
            String key = key(row.clusterId(), row.serviceUid());
            LoadBalancer had = s.loadBalancers.get(key);
            if (had == null || had.version() != expectedVersion) {
                return false;
            }
            s.loadBalancers.put(key, row.withVersion(expectedVersion + 1));
            return true;
        });
    }

    @Override
    public boolean delete(String clusterId, String serviceUid, long expectedVersion) {
        return store.locked(s -> {
            LoadBalancer had = s.loadBalancers.get(key(clusterId, serviceUid));
            if (had == null || had.version() != expectedVersion) {
                return false;
            }
            s.loadBalancers.remove(key(clusterId, serviceUid));
            return true;
        });
    }
}
