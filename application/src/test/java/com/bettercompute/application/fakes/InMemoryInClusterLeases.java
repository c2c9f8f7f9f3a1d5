package com.bettercompute.application.fakes;

import com.bettercompute.application.port.InClusterLeases;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link InClusterLeases} in memory, shared by every replica a test runs: each call holds this object's lock,
 * as each of the database's conditional writes holds its row's.
 */
public final class InMemoryInClusterLeases implements InClusterLeases {
    private record Lease(String owner, Instant until) {}

    private final Map<String, Instant> replicas = new HashMap<>();
    private final Map<String, Lease> leases = new HashMap<>();

    @Override
    public synchronized List<String> replicas(String owner, Instant now, Instant until) {
        replicas.put(owner, until);
        replicas.values().removeIf(u -> u.isBefore(now));
        return replicas.keySet().stream().sorted().toList();
    }

    @Override
    public synchronized Set<String> claim(Collection<String> clusterIds, String owner, Instant now, Instant until) {
        Set<String> held = new LinkedHashSet<>();
        for (String id : clusterIds) {
            Lease lease = leases.get(id);
            if (lease == null || lease.owner().equals(owner) || lease.until().isBefore(now)) {
                leases.put(id, new Lease(owner, until));
                held.add(id);
            }
        }
        return held;
    }

    @Override
    public synchronized void release(Collection<String> clusterIds, String owner) {
        for (String id : clusterIds) {
            leases.computeIfPresent(id, (k, lease) -> lease.owner().equals(owner) ? null : lease);
        }
    }

    @Override
    public synchronized void leave(String owner) {
        replicas.remove(owner);
        leases.values().removeIf(lease -> lease.owner().equals(owner));
    }

    /** Forgets every replica and lease. */
    public synchronized void clear() {
        replicas.clear();
        leases.clear();
    }

    /** The owner of each cluster's lease as stored (run out or not). */
    public synchronized Map<String, String> owners() {
        Map<String, String> out = new HashMap<>();
        leases.forEach((id, lease) -> out.put(id, lease.owner()));
        return out;
    }
}
