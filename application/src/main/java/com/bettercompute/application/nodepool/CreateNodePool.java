package com.bettercompute.application.nodepool;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.GuardedWrite;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.catalog.Locations;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.NodePoolEvent;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code kubernetesNodePools.create}: adds a {@code pending} node pool to a Standard cluster; the reconciler
 * creates it at the provider. Checks in the order of the clusters' create: input, the decision on the
 * cluster ({@code ACCESS_DENIED} before {@code NOT_FOUND}), the idempotent replay, the cluster's mode
 * ({@code UNSUPPORTED}), the zones ({@code INVALID_INPUT}), the cluster's state ({@code INVALID_STATE}),
 * then name ({@code CONFLICT}) and quota ({@code QUOTA_EXCEEDED}). The pool is stored with its cluster by the
 * cluster row's optimistic update, so the last checks are re-made on the row that is written: exact under
 * concurrent calls.
 */
public final class CreateNodePool {
    /** Node pools per cluster that are not deleted (one being deleted still counts). */
    public static final int MAX_POOLS_PER_CLUSTER = 10;

    private final Transactions tx;
    private final ClusterRepository clusters;
    private final CatalogRepository catalog;
    private final EventOutbox outbox;
    private final ClusterLookup lookup;
    private final Clock clock;

    public CreateNodePool(Transactions tx, ClusterRepository clusters, CatalogRepository catalog, EventOutbox outbox,
                          Authorizer authorizer, Clock clock) {
        this.tx = tx;
        this.clusters = clusters;
        this.catalog = catalog;
        this.outbox = outbox;
        this.lookup = new ClusterLookup(clusters, authorizer);
        this.clock = clock;
    }

    public NodePool create(Caller caller, CreateNodePoolCommand cmd) {
        String id = cmd.nodePoolId(caller.id());
        return GuardedWrite.retry(() -> {
            Cluster current = lookup.require(caller, new ClusterRef(cmd.tenantId(), cmd.clusterId()), Action.UPDATE);
            Optional<NodePool> earlier = current.nodePools().stream().filter(p -> p.id().equals(id)).findFirst();
            if (earlier.isPresent()) {
                return Optional.of(sameRequest(cmd, earlier.get()));
            }
            check(current, cmd);
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            NodePool pool = new NodePool(id, current.id(), cmd.spec(), ClusterState.PENDING, null, 1, now, now, cmd.fingerprint());
            Cluster changed = current.withPoolChanged(pool, true, now);
            Boolean saved = tx.inTransaction(() -> {
                if (!clusters.updateRequest(changed, current.version())) {
                    return false;
                }
                outbox.append(new NodePoolEvent.NodePoolCreated(changed, pool, now).stored());
                return true;
            });
            return saved ? Optional.of(pool) : Optional.<NodePool>empty();
        });
    }

    private static NodePool sameRequest(CreateNodePoolCommand cmd, NodePool earlier) {
        if (!cmd.fingerprint().equals(earlier.requestFingerprint())) {
            throw new DomainException(ErrorCode.CONFLICT, "The idempotency key was used for a different request.",
                    Map.of("field", "idempotencyKey", "reason", "idempotency-key-reused", "nodePoolId", earlier.id()));
        }
        return earlier;
    }

    private void check(Cluster c, CreateNodePoolCommand cmd) {
        if (c.mode() == ClusterMode.AUTOPILOT) {
            throw new DomainException(ErrorCode.UNSUPPORTED,
                    "Cluster " + c.id() + " is an autopilot cluster: the provider runs its nodes, it takes no node pools.",
                    Map.of("reason", "autopilot", "clusterId", c.id()));
        }
        checkZones(c, cmd);
        if (c.goingAway()) {
            throw NodePools.beingDeleted(c);
        }
        String name = cmd.spec().name();
        if (CpuWorker.is(cmd.spec())) {
            throw new DomainException(ErrorCode.INVALID_INPUT, "The node pool name " + name + " is the platform's CPU worker's; "
                    + "a cluster has one, made with it.", Map.of("field", "name", "reason", "cpu-worker"));
        }
        if (c.nodePools().stream().anyMatch(p -> p.state() != ClusterState.DELETED && p.spec().name().equals(name))) {
            throw new DomainException(ErrorCode.CONFLICT, "The cluster already has a node pool named " + name + ".",
                    Map.of("field", "name", "reason", "name-in-use"));
        }
        long notDeleted = c.nodePools().stream().filter(p -> p.state() != ClusterState.DELETED && !CpuWorker.is(p)).count();
        if (notDeleted >= MAX_POOLS_PER_CLUSTER) {
            throw new DomainException(ErrorCode.QUOTA_EXCEEDED,
                    "The cluster has " + MAX_POOLS_PER_CLUSTER + " node pools that are not deleted, its limit.",
                    Map.of("reason", "node-pools", "limit", MAX_POOLS_PER_CLUSTER));
        }
    }

    /** A pool's zones must be zones of the cluster's region that its account is configured with. */
    private void checkZones(Cluster c, CreateNodePoolCommand cmd) {
        List<String> accountZones = catalog.account(c.providerAccountId()).map(ProviderAccount::zones).orElse(List.of());
        List<FieldProblem> problems = new ArrayList<>();
        List<String> zones = cmd.spec().zones();
        for (int z = 0; z < zones.size(); z++) {
            String zone = zones.get(z);
            if (!accountZones.contains(zone) || !c.region().equals(Locations.regionOfZone(zone))) {
                problems.add(new FieldProblem("zones[" + z + "]",
                        "must be a zone of the cluster's region " + c.region() + " that the pool's account is configured with"));
            }
        }
        if (!problems.isEmpty()) {
            throw Input.invalid(problems);
        }
    }
}
