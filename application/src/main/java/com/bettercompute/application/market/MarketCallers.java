package com.bettercompute.application.market;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.cluster.Cluster;
import java.util.Map;
import java.util.TreeSet;

/**
 * Who calls the market routes (docs/tenants/market.md): the organization is the tenant the caller's
 * bindings name ({@code org} when they name several), a cluster is named by its name inside it, so a
 * cluster of another organization never answers ({@code NOT_FOUND}); and the operator routes need an
 * operator principal.
 */
public final class MarketCallers {
    private final AccessRepository access;
    private final ClusterRepository clusters;
    private final ClusterLookup lookup;

    public MarketCallers(AccessRepository access, ClusterRepository clusters, ClusterLookup lookup) {
        this.access = access;
        this.clusters = clusters;
        this.lookup = lookup;
    }

    /**
     * The caller's organization. {@code org} may be null when the caller's bindings name one tenant;
     * otherwise it must be one of them (an operator may name any).
     */
    public String org(Caller caller, String org) {
        TreeSet<String> tenants = new TreeSet<>();
        for (RoleBinding b : access.bindings(caller.id())) {
            if (b.tenantId() != null) {
                tenants.add(b.tenantId());
            } else {
                clusters.find(b.clusterId()).ifPresent(c -> tenants.add(c.tenantId()));
            }
        }
        if (org != null) {
            if (!caller.operator() && !tenants.contains(org)) {
                throw new DomainException(ErrorCode.NOT_FOUND, "No organization " + org + " for this token.",
                        Map.of("field", "org"));
            }
            return org;
        }
        if (tenants.size() == 1) {
            return tenants.first();
        }
        if (tenants.isEmpty()) {
            throw new DomainException(ErrorCode.ACCESS_DENIED, "The token names no organization.",
                    Map.of("field", "org"));
        }
        throw new DomainException(ErrorCode.INVALID_INPUT, "The token names several organizations; add org=<tenant>.",
                Map.of("fields", java.util.List.of(Map.of("field", "org", "problem",
                        "is required: the token names " + String.join(", ", tenants)))));
    }

    /**
     * The organization's cluster of that name (not deleted), decided for {@code action} as the clusters
     * API decides it; {@code NOT_FOUND} when the organization has no such cluster.
     */
    public Cluster cluster(Caller caller, String org, String name, Action action) {
        return lookup.named(caller, org(caller, org), name, action);
    }

    /** {@code ACCESS_DENIED} unless the caller is an operator principal. */
    public static void requireOperator(Caller caller) {
        if (!caller.operator()) {
            throw new DomainException(ErrorCode.ACCESS_DENIED, "Only an operator may call the operator's market routes.",
                    Map.of("reason", "operator-only"));
        }
    }
}
