package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Locations;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Subnet;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.ClusterEvent;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.CpuWorker;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code kubernetesClusters.create}: records a cluster {@code pending} with its node pools. The checks run
 * in docs/api/README.md's order; the last ones (name, quota) are the repository's insert, which makes them under the
 * tenant's lock with the writes, so they are exact under concurrent calls, and answers once the cluster, its
 * owner and its event are committed.
 */
public final class CreateCluster {
    private final ClusterRepository clusters;
    private final CatalogRepository catalog;
    private final Authorizer authorizer;
    private final ClusterPlacement placement;
    private final Clock clock;

    public CreateCluster(ClusterRepository clusters, CatalogRepository catalog, Authorizer authorizer, Clock clock) {
        this.clusters = clusters;
        this.catalog = catalog;
        this.authorizer = authorizer;
        this.placement = new ClusterPlacement(catalog);
        this.clock = clock;
    }

    /**
     * Step 3, the replay, is decided where it costs no read of its own: a create whose checks pass goes to the
     * insert, which finds an earlier cluster of the same id and answers the same key again with the cluster as it is
     * now ({@link #sameRequest}); a create the checks refuse looks for an earlier cluster of its key first, since the
     * replay comes before those checks.
     */
    public Cluster create(Caller caller, CreateClusterCommand cmd) {
        String id = cmd.clusterId(caller.id());
        ClusterRepository.NewCluster insert;
        try {
            insert = checked(caller, cmd, id);
        } catch (DomainException refused) {
            Optional<Cluster> earlier = clusters.find(id);
            if (earlier.isPresent()) {
                return replay(caller, cmd, earlier.get());
            }
            throw refused;
        }
        ClusterRepository.Insertion done = clusters.insert(insert);
        if (done instanceof ClusterRepository.Insertion.Inserted inserted) {
            return inserted.cluster();
        }
        if (done instanceof ClusterRepository.Insertion.AlreadyStored earlier) {
            return sameRequest(cmd, earlier.cluster());
        }
        if (done instanceof ClusterRepository.Insertion.NoTenant) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No tenant " + cmd.tenantId() + ".", Map.of("tenantId", cmd.tenantId()));
        }
        if (done instanceof ClusterRepository.Insertion.NameInUse) {
            throw new DomainException(ErrorCode.CONFLICT, "The tenant already has a cluster named " + cmd.name() + ".",
                    Map.of("field", "name", "reason", "name-in-use"));
        }
        int limit = ((ClusterRepository.Insertion.OverQuota) done).limit();
        throw new DomainException(ErrorCode.QUOTA_EXCEEDED, "The tenant has " + limit + " clusters that are not deleted, its limit.",
                Map.of("reason", "clusters", "limit", limit));
    }

    /** Steps 4 to 7 and the new cluster, for a key not seen before (or one the insert will find). */
    private ClusterRepository.NewCluster checked(Caller caller, CreateClusterCommand cmd, String id) {
        ClusterPlacement.VisiblePool pool = placement.pool(cmd.tenantId(), cmd.poolId());
        Optional<ClusterPlacement.Location> found = ClusterPlacement.find(pool.account(), cmd.location());
        Optional<Subnet> subnet = checkShape(cmd, pool, found);
        ClusterPlacement.Location location = found.orElseThrow(); // checkShape refused an unknown one
        authorizer.require(caller, Action.CREATE, resource(cmd, id, pool));
        checkNotRetired(cmd, pool);
        checkOffer(pool.offer(), location);
        if (pool.pool().billingMode() != BillingMode.NONE) {
            checkBudgets(cmd.tenantId());
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Cluster cluster = newCluster(caller, cmd, id, pool, location, subnet, now);
        int limit = catalog.tenant(cmd.tenantId()).map(Tenant::maxClusters).orElse(Tenant.DEFAULT_MAX_CLUSTERS);
        return new ClusterRepository.NewCluster(cluster, caller.id(), new ClusterEvent.ClusterCreated(cluster, now).stored(), limit);
    }

    /** Step 3: the same key again. The same request returns the cluster as it is now, once decided again. */
    private Cluster replay(Caller caller, CreateClusterCommand cmd, Cluster earlier) {
        Cluster same = sameRequest(cmd, earlier);
        authorizer.require(caller, Action.CREATE, ClusterResources.of(same));
        return same;
    }

    private static Cluster sameRequest(CreateClusterCommand cmd, Cluster earlier) {
        if (!earlier.requestFingerprint().equals(cmd.fingerprint())) {
            throw new DomainException(ErrorCode.CONFLICT,
                    "The idempotency key was used for a different request.",
                    Map.of("field", "idempotencyKey", "reason", "idempotency-key-reused", "clusterId", earlier.id()));
        }
        return earlier;
    }

    /**
     * Step 5: the location, mode and node pools, their zones, the project and the network, every bad one named in one
     * answer. Returns the subnet the nodes use.
     */
    private Optional<Subnet> checkShape(CreateClusterCommand cmd, ClusterPlacement.VisiblePool pool, Optional<ClusterPlacement.Location> found) {
        List<FieldProblem> problems = new ArrayList<>();
        if (found.isEmpty()) {
            problems.add(ClusterPlacement.locationProblem());
        }
        if (cmd.mode() == ClusterMode.STANDARD && cmd.nodePools().isEmpty()) {
            problems.add(new FieldProblem("nodePools", "a standard cluster needs 1 to 10 node pools"));
        }
        if (cmd.mode() == ClusterMode.AUTOPILOT && !cmd.nodePools().isEmpty()) {
            problems.add(new FieldProblem("nodePools", "an autopilot cluster takes no node pools: the provider runs its nodes"));
        }
        for (int i = 0; i < cmd.nodePools().size(); i++) {
            List<String> zones = cmd.nodePools().get(i).zones();
            for (int z = 0; z < zones.size(); z++) {
                String zone = zones.get(z);
                if (found.isEmpty()) {
                    if (!pool.account().zones().contains(zone)) {
                        problems.add(new FieldProblem("nodePools[" + i + "].zones[" + z + "]",
                                "must be a zone of the cluster's region that the pool's account is configured with"));
                    }
                } else if (!pool.account().zones().contains(zone) || !found.get().region().equals(Locations.regionOfZone(zone))) {
                    problems.add(new FieldProblem("nodePools[" + i + "].zones[" + z + "]",
                            "must be a zone of the cluster's region " + found.get().region() + " that the pool's account is configured with"));
                }
            }
        }
        if (cmd.projectId() != null && catalog.project(cmd.projectId()).filter(p -> p.tenantId().equals(cmd.tenantId())).isEmpty()) {
            problems.add(new FieldProblem("projectId", "is not a project of this tenant"));
        }
        Optional<Subnet> subnet = Optional.empty();
        if (cmd.networkId() != null) {
            Optional<Network> network = catalog.network(cmd.networkId());
            if (network.isEmpty() || !network.get().tenantId().equals(cmd.tenantId())) {
                problems.add(new FieldProblem("networkId", "is not a network of this tenant"));
            } else if (!network.get().accountId().equals(pool.account().id())) {
                problems.add(new FieldProblem("networkId", "is on another provider account than the pool"));
            } else if (problems.isEmpty()) {
                ClusterPlacement.Location location = found.orElseThrow();
                subnet = network.get().readySubnetIn(location.region());
                if (!network.get().provisioned()) {
                    throw new DomainException(ErrorCode.INVALID_STATE,
                            "Network " + cmd.networkId() + " has not been provisioned yet.",
                            Map.of("field", "networkId", "reason", "network-not-provisioned"));
                }
                if (subnet.isEmpty()) {
                    boolean anyInRegion = network.get().subnets().stream().anyMatch(s -> s.region().equals(location.region()));
                    if (anyInRegion) {
                        throw new DomainException(ErrorCode.INVALID_STATE,
                                "Network " + cmd.networkId() + " has no ready subnet in " + location.region() + " yet.",
                                Map.of("field", "networkId", "reason", "subnet-not-ready", "region", location.region()));
                    }
                    problems.add(new FieldProblem("networkId", "has no subnet in the cluster's region " + location.region()));
                }
            }
        }
        if (!problems.isEmpty()) {
            DomainException invalid = Input.invalid(problems);
            throw found.isPresent() ? invalid : new DomainException(ErrorCode.INVALID_INPUT, invalid.getMessage(),
                    ClusterPlacement.withAllowedLocations(invalid.details(), pool.account()));
        }
        return subnet;
    }

    /**
     * Step 7, with the offer: nothing new on what the operator's catalog no longer names (the tenant, the
     * pool, its account or provider, the project, the network); the clusters already on them keep working.
     */
    private void checkNotRetired(CreateClusterCommand cmd, ClusterPlacement.VisiblePool pool) {
        Map<CatalogRepository.Kind, String> used = new LinkedHashMap<>();
        used.put(CatalogRepository.Kind.TENANT, cmd.tenantId());
        used.put(CatalogRepository.Kind.POOL, cmd.poolId());
        used.put(CatalogRepository.Kind.ACCOUNT, pool.account().id());
        used.put(CatalogRepository.Kind.PROVIDER, pool.account().providerId());
        if (cmd.projectId() != null) {
            used.put(CatalogRepository.Kind.PROJECT, cmd.projectId());
        }
        if (cmd.networkId() != null) {
            used.put(CatalogRepository.Kind.NETWORK, cmd.networkId());
        }
        used.forEach((kind, entry) -> {
            if (catalog.retired(kind, entry)) {
                String what = kind.name().toLowerCase(java.util.Locale.ROOT);
                throw new DomainException(ErrorCode.ACCESS_DENIED,
                        "The " + what + " " + entry + " is retired: no new cluster is created on it.",
                        Map.of("reason", "retired", "retired", what, "id", entry));
            }
        });
    }

    private static void checkOffer(Optional<Offer> offer, ClusterPlacement.Location location) {
        if (offer.isEmpty()) {
            return;
        }
        if (!offer.get().active()) {
            throw new DomainException(ErrorCode.ACCESS_DENIED, "The tenant's offer of this pool is suspended.",
                    Map.of("reason", "offer-suspended", "poolId", offer.get().poolId()));
        }
        if (offer.get().excludedRegions().contains(location.region())) {
            throw new DomainException(ErrorCode.ACCESS_DENIED,
                    "The tenant's offer of this pool excludes the region " + location.region() + ".",
                    Map.of("reason", "region-excluded", "region", location.region()));
        }
    }

    private void checkBudgets(String tenantId) {
        for (Budget b : catalog.budgets(tenantId)) {
            if (b.exhausted()) {
                Map<String, Object> details = new LinkedHashMap<>();
                details.put("reason", "budget");
                details.put("budgetId", b.id());
                details.put("limit", b.limitUsd());
                details.put("spent", b.spentUsd());
                throw new DomainException(ErrorCode.QUOTA_EXCEEDED, "The tenant's budget " + b.id() + " is spent.", details);
            }
        }
    }

    private static Resource resource(CreateClusterCommand cmd, String id, ClusterPlacement.VisiblePool pool) {
        return ClusterResources.of(cmd.tenantId(), id, pool.account().id(), cmd.poolId(), cmd.projectId(), cmd.mode(), cmd.location());
    }

    /** One zone for the CPU worker's one node: a zonal cluster's own (empty list), a regional cluster's first configured zone. */
    private static List<String> cpuWorkerZones(ClusterPlacement.VisiblePool pool, ClusterPlacement.Location location) {
        if (location.type() == com.bettercompute.domain.cluster.LocationType.ZONAL) {
            return List.of();
        }
        return pool.account().zones().stream().filter(z -> location.region().equals(Locations.regionOfZone(z))).sorted().limit(1).toList();
    }

    private static Cluster newCluster(Caller caller, CreateClusterCommand cmd, String id, ClusterPlacement.VisiblePool pool,
                                      ClusterPlacement.Location location, Optional<Subnet> subnet, Instant now) {
        List<NodePool> pools = new ArrayList<>();
        for (NodePoolSpec spec : cmd.nodePools()) {
            pools.add(new NodePool(Ids.nodePoolId(id, spec.name()), id, spec, ClusterState.PENDING, null, 1, now, now));
        }
        if (cmd.mode() == ClusterMode.STANDARD) {
            // An Autopilot cluster's provider runs CPU pods on nodes of its own: only Standard clusters get the CPU worker.
            NodePoolSpec worker = CpuWorker.spec(cpuWorkerZones(pool, location));
            pools.add(new NodePool(Ids.nodePoolId(id, worker.name()), id, worker, ClusterState.PENDING, null, 1, now, now));
        }
        return new Cluster(id, cmd.tenantId(), cmd.projectId(), cmd.poolId(), pool.account().id(), cmd.name(),
                cmd.description(), cmd.mode(), location.name(), location.region(), location.type(), cmd.releaseChannel(),
                cmd.version(), null, null, null, cmd.authorizedNetworks(), cmd.privateNodes(), cmd.networkId(),
                subnet.map(Subnet::name).orElse(null), ClusterState.PENDING, null, Ids.providerName(id), caller.id(),
                cmd.fingerprint(), 1, now, now, null, null, pools, Cluster.Progress.NONE);
    }
}
