package com.bettercompute.domain.market;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The market's accounts: tenants and their credits, their clusters with each one's limit price, max cluster
 * size and packing.
 */
final class Accounts {
    private final MarketState state;
    private final ChangeLog changes;
    private final ClusterQueues queues;
    private final Supply supply;

    Accounts(MarketState state, ClusterQueues queues, Supply supply) {
        this.state = state;
        this.changes = state.changes;
        this.queues = queues;
        this.supply = supply;
    }

    void addTenant(String tenantId, Money credits) {
        if (state.tenants.containsKey(tenantId)) {
            throw new DomainException(ErrorCode.CONFLICT, "tenant " + tenantId + " exists", Map.of("tenant", tenantId));
        }
        state.tenants.put(tenantId, new Tenant(tenantId, state.tenants.size(), credits.micros()));
    }

    void credit(String tenantId, Money amount) {
        Tenant t = state.tenant(tenantId);
        t.credits = Math.addExact(t.credits, amount.micros());
    }

    void chargeElsewhere(String tenantId, Money amount) {
        Tenant t = state.tenant(tenantId);
        t.settled = Math.addExact(t.settled, amount.micros());
        t.charged = Math.addExact(t.charged, amount.micros());
    }

    void addCluster(String clusterId, String tenantId, long maxGpus, Money limit) {
        if (state.clusters.containsKey(clusterId)) {
            throw new DomainException(ErrorCode.CONFLICT, "cluster " + clusterId + " exists",
                    Map.of("cluster", clusterId));
        }
        LimitPriceWritePolicy.checkInRange(limit);
        state.clusters.put(clusterId, new ClusterBook(new TenantCluster(clusterId, state.tenant(tenantId),
                state.clusters.size(), maxGpus, limit)));
    }

    /** A larger max cluster size files queued requests at once; a smaller one never takes back what is filed. */
    void changeCluster(String clusterId, long maxGpus, boolean packing, Instant at) {
        if (maxGpus < 0) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "a max cluster size is never negative",
                    Map.of("maxGpus", maxGpus));
        }
        ClusterBook book = state.clusterBook(clusterId);
        book.cluster.maxGpus = maxGpus;
        book.cluster.packing = packing;
        queues.admit(book, at, state.betweenTicks);
        queues.restateHeld(book, at, state.betweenTicks);
    }

    /** Only an empty cluster leaves (no open request, no grant); its block nodes return to supply. */
    void removeCluster(String clusterId) {
        TenantCluster c = state.cluster(clusterId);
        int open = 0;
        for (MarketRequest r : state.requests.values()) {
            if (r.cluster == c) {
                open++;
            }
        }
        int held = 0;
        for (NodeGrant g : state.grants.values()) {
            if (g.cluster == c) {
                held++;
            }
        }
        int seated = 0;
        for (String id : c.blockNodes) {
            seated += state.nodes.get(id).seatedGpus;
        }
        if (open > 0 || held > 0 || seated > 0) {
            throw new DomainException(ErrorCode.INVALID_STATE, "cluster " + clusterId + " still has " + open
                    + " open requests and " + held + " node grants; it leaves the market once they are done",
                    Map.of("cluster", clusterId, "openRequests", open, "grants", held));
        }
        for (String id : new ArrayList<>(c.blockNodes)) {
            supply.sizeBlock(clusterId, state.nodes.get(id).pool, 0);
        }
        for (Node n : state.nodes.values()) {
            if (n.lostGrant != null && n.lostGrant.cluster == c) {
                n.lostGrant = null;
                changes.touch(n);
            }
        }
        state.clusters.remove(clusterId);
    }

    /** Sets (or with null withdraws) a cluster's limit price. */
    void setClusterLimit(String clusterId, Money limit) {
        LimitPriceWritePolicy.checkInRange(limit);
        state.cluster(clusterId).setLimit(limit);
    }

    /** The same, noting when, for the limit price read's {@code updated_at}. */
    void setClusterLimit(String clusterId, Money limit, Instant at) {
        setClusterLimit(clusterId, limit);
        state.cluster(clusterId).limitSetAt = at;
    }
}
