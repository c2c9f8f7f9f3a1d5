package com.bettercompute.application.loadbalancer;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.LoadBalancerRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.loadbalancer.LoadBalancer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who holds which address: every load balancer the platform keeps, for an operator (any tenant, any region), and a
 * cluster's, for the people who may read that cluster (its Workloads page). Reads only the platform's rows, so it
 * answers the same whether or not the tenant cluster can be reached.
 */
public final class ListLoadBalancers {
    private final LoadBalancerRepository rows;
    private final ClusterRepository clusters;
    private final ClusterLookup lookup;

    public ListLoadBalancers(LoadBalancerRepository rows, ClusterRepository clusters, Authorizer authorizer) {
        this.rows = rows;
        this.clusters = clusters;
        this.lookup = new ClusterLookup(clusters, authorizer);
    }

    /** A load balancer with its cluster's name (null once the cluster's row is gone). */
    public record Held(LoadBalancer lb, String clusterName) {
    }

    /**
     * Every load balancer, by cluster then oldest first; {@code tenant} and {@code region}, when not null, keep only
     * theirs. An operator only: anyone else is {@code ACCESS_DENIED} before anything is read.
     */
    public List<Held> forOperator(Caller caller, String tenant, String region) {
        if (!caller.operator()) {
            throw new DomainException(ErrorCode.ACCESS_DENIED, "Only an operator may list every load balancer.",
                    Map.of("reason", "operator-only"));
        }
        Map<String, Optional<Cluster>> names = new HashMap<>();
        return rows.all().stream()
                .filter(lb -> tenant == null || tenant.equals(lb.tenantId()))
                .filter(lb -> region == null || region.equals(lb.region()))
                .map(lb -> new Held(lb, names.computeIfAbsent(lb.clusterId(), clusters::find).map(Cluster::name).orElse(null)))
                .toList();
    }

    /** The cluster's load balancers, oldest first, for a caller who may read the cluster ({@code ACCESS_DENIED} else). */
    public List<Held> ofCluster(Caller caller, Cluster cluster) {
        lookup.require(caller, Action.READ, cluster);
        return rows.ofCluster(cluster.id()).stream().map(lb -> new Held(lb, cluster.name())).toList();
    }
}
