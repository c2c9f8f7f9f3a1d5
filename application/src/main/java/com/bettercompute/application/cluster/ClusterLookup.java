package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterFilter;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;

import java.util.Map;
import java.util.Optional;

/**
 * The one step by which a use case finds the cluster a caller names and decides the caller's action on it, so
 * that every route answers a cluster the caller may not see, a missing one and one in the wrong state alike.
 * Reads only; never writes.
 * <ul>
 *   <li>By id in a tenant ({@link #require(Caller, ClusterRef, Action)}): the decision first ({@code ACCESS_DENIED}),
 *       then {@code NOT_FOUND}; an id that is not the tenant's is decided as an unknown cluster of that tenant, so a
 *       cluster of another tenant is refused before it could be told apart from one that does not exist.</li>
 *   <li>By name in an organization ({@link #named}): among its clusters that are not deleted; none of that name is
 *       {@code NOT_FOUND} naming the field {@code cluster}; the one found is then decided as by id.</li>
 *   <li>Already found ({@link #require(Caller, Action, Cluster)}): {@code ACCESS_DENIED} unless the caller may.</li>
 *   <li>State ({@link #reach}): whether the platform can connect to the cluster's API now; a use case that needs it
 *       refuses the rest with {@link #notConnectable} ({@code INVALID_STATE} naming the state), in its own words.</li>
 * </ul>
 */
public final class ClusterLookup {
    /** The most clusters of one organization a name is looked for among. */
    static final int SCAN_LIMIT = 20_000;

    private final ClusterRepository clusters;
    private final Authorizer authorizer;

    public ClusterLookup(ClusterRepository clusters, Authorizer authorizer) {
        this.clusters = clusters;
        this.authorizer = authorizer;
    }

    /** Whether the platform can reach a cluster's Kubernetes API, and if not, why. */
    public enum Reach {
        /** Ready (or updating after it was once ready), with its endpoint and CA reported. */
        CONNECTABLE,
        /** Not ready yet, not any more, or never: being made, failed, being deleted or deleted. */
        NOT_READY,
        /** In a ready state, but the provider has not reported its endpoint and CA yet. */
        NO_ENDPOINT
    }

    /** The tenant's cluster of that id, decided for {@code action}: {@code ACCESS_DENIED}, then {@code NOT_FOUND}. */
    public Cluster require(Caller caller, ClusterRef ref, Action action) {
        Optional<Cluster> found = clusters.find(ref.clusterId()).filter(c -> c.tenantId().equals(ref.tenantId()));
        authorizer.require(caller, action, found.map(ClusterResources::of)
                .orElseGet(() -> ClusterResources.unknown(ref.tenantId())));
        return found.orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND,
                "No cluster " + ref.clusterId() + " in tenant " + ref.tenantId() + ".", Map.of("clusterId", ref.clusterId())));
    }

    /**
     * The organization's cluster of that name that is not deleted, decided for {@code action} as by id; {@code NOT_FOUND}
     * ({@code field: cluster}) when the organization has none. The organization is the caller's, already resolved.
     */
    public Cluster named(Caller caller, String tenantId, String name, Action action) {
        Cluster found = null;
        for (Cluster c : clusters.list(new ClusterFilter(tenantId, null, null, false), SCAN_LIMIT)) {
            if (c.name().equals(name) && c.state() != ClusterState.DELETED) {
                found = c;
            }
        }
        if (found == null) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No cluster " + name + " in your organization.",
                    Map.of("field", "cluster"));
        }
        return require(caller, new ClusterRef(tenantId, found.id()), action);
    }

    /** {@code ACCESS_DENIED} unless the caller may take {@code action} on a cluster it already holds. */
    public void require(Caller caller, Action action, Cluster cluster) {
        authorizer.require(caller, action, ClusterResources.of(cluster));
    }

    /** Whether the platform can connect to the cluster now. */
    public static Reach reach(Cluster c) {
        boolean ready = c.state() == ClusterState.READY || (c.state() == ClusterState.UPDATING && c.readyAt() != null);
        if (!ready) {
            return Reach.NOT_READY;
        }
        boolean reported = c.endpoint() != null && !c.endpoint().isBlank() && c.progress() != null
                && c.progress().caCertificate() != null;
        return reported ? Reach.CONNECTABLE : Reach.NO_ENDPOINT;
    }

    /** The refusal of a cluster that cannot be connected to: {@code INVALID_STATE}, {@code details.state} its state. */
    public static DomainException notConnectable(Cluster c, String message) {
        return new DomainException(ErrorCode.INVALID_STATE, message, Map.of("state", c.state().wire()));
    }
}
