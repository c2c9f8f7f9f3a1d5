package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.BillingMode;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Catalog;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.PoolKind;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Subnet;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Autoscaling;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.domain.cluster.Taint;

import java.util.List;
import java.util.Map;

/**
 * The use cases of the clusters API on in-memory ports, with a catalog of two tenants: {@code acme}
 * (offered the platform pool, with its own account too) and {@code globex}.
 */
public final class ClusterWorld {
    public static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    public static final String OWN_POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e5";
    public static final String METAL_POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e6";
    public static final String FREE_POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e7";
    public static final String SUSPENDED_POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e8";
    public static final String GLOBEX_POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e9";
    public static final String PROJECT = "prj_01hzx8k3v4w5y6z7a8b9c0d1e3";
    public static final String NETWORK = "net_01hzx8k3v4w5y6z7a8b9c0d1e4";
    public static final String PENDING_NETWORK = "net_01hzx8k3v4w5y6z7a8b9c0d1ea";
    public static final String OWN_ACCOUNT_NETWORK = "net_01hzx8k3v4w5y6z7a8b9c0d1eb";
    public static final String GLOBEX_NETWORK = "net_01hzx8k3v4w5y6z7a8b9c0d1ec";

    public final InMemoryPorts ports = InMemoryPorts.create();
    public final Authorizer authorizer = new Authorizer(ports.access());
    public final CreateCluster create = new CreateCluster(ports.clusters(), ports.catalog(), authorizer, ports.clock());
    public final ListClusters list = new ListClusters(ports.clusters(), authorizer);
    public final GetCluster get = new GetCluster(ports.clusters(), authorizer);
    public final UpdateCluster update = new UpdateCluster(ports.transactions(), ports.clusters(), authorizer, ports.clock());
    public final DeleteCluster delete = new DeleteCluster(ports.transactions(), ports.clusters(), ports.outbox(), authorizer, ports.clock());
    public final Authenticate authenticate = new Authenticate(ports.access());

    public final Catalog catalog;
    public final Caller alice;
    public final Caller bob;
    public final Caller carol;
    public final Caller dave;

    public ClusterWorld() {
        this(10, List.of());
    }

    ClusterWorld(int maxClusters, List<Budget> budgets) {
        List<CatalogPrincipal> principals = List.of(
                principal("user:alice@acme.example", new RoleBinding("user:alice@acme.example", "acme", null, Role.KUBERNETES_ADMIN, Map.of())),
                principal("user:bob@acme.example", new RoleBinding("user:bob@acme.example", "acme", null, Role.KUBERNETES_EDITOR,
                        Map.of("mode", List.of("autopilot"), "location", List.of("us-central1", "us-central1-a")))),
                principal("user:carol@globex.example", new RoleBinding("user:carol@globex.example", "globex", null, Role.KUBERNETES_ADMIN, Map.of())),
                principal("user:dave@acme.example", new RoleBinding("user:dave@acme.example", "acme", null, Role.KUBERNETES_VIEWER, Map.of())),
                new CatalogPrincipal("service:ops", Ids.sha256Hex("token-service:ops"), true, List.of()));
        catalog = new Catalog(
                List.of(new Provider("gcp", true), new Provider("metal", false)),
                List.of(new ProviderAccount("acct_platform", "gcp", "platform", "platform-prod",
                                List.of("us-central1-a", "us-central1-b", "us-central1-c", "europe-west4-a")),
                        new ProviderAccount("acct_acme", "gcp", "acme", "acme-own", List.of("us-east1-b")),
                        new ProviderAccount("acct_metal", "metal", "platform", "dc1", List.of("us-west1-a"))),
                List.of(new Pool(POOL, "acct_platform", PoolKind.PROVIDER, "provider", BillingMode.METERED),
                        new Pool(OWN_POOL, "acct_acme", PoolKind.PROVIDER, "provider", BillingMode.PLATFORM_FEE),
                        new Pool(METAL_POOL, "acct_metal", PoolKind.PROVIDER, "provider", BillingMode.METERED),
                        new Pool(FREE_POOL, "acct_platform", PoolKind.PROVIDER, "provider", BillingMode.NONE),
                        new Pool(SUSPENDED_POOL, "acct_platform", PoolKind.PROVIDER, "provider", BillingMode.METERED),
                        new Pool(GLOBEX_POOL, "acct_platform", PoolKind.PROVIDER, "provider", BillingMode.METERED)),
                List.of(new Offer(POOL, "acme", true, List.of("europe-west4")),
                        new Offer(METAL_POOL, "acme", true, List.of()),
                        new Offer(FREE_POOL, "acme", true, List.of()),
                        new Offer(SUSPENDED_POOL, "acme", false, List.of()),
                        new Offer(GLOBEX_POOL, "globex", true, List.of()),
                        new Offer(POOL, "globex", true, List.of())),
                List.of(new Tenant("acme", maxClusters), new Tenant("globex", 10)),
                List.of(new Project(PROJECT, "acme")),
                List.of(new Network(NETWORK, "acme", "acct_platform", "provisioned",
                                List.of(new Subnet("zeta", "us-central1", "ready"), new Subnet("main", "us-central1", "ready"),
                                        new Subnet("eu", "europe-west4", "pending"))),
                        new Network(PENDING_NETWORK, "acme", "acct_platform", "pending", List.of()),
                        new Network(OWN_ACCOUNT_NETWORK, "acme", "acct_acme", "provisioned", List.of()),
                        new Network(GLOBEX_NETWORK, "globex", "acct_platform", "provisioned",
                                List.of(new Subnet("main", "us-central1", "ready")))),
                budgets,
                principals);
        reload(catalog);
        alice = authenticate.byToken("token-user:alice@acme.example");
        bob = authenticate.byToken("token-user:bob@acme.example");
        carol = authenticate.byToken("token-user:carol@globex.example");
        dave = authenticate.byToken("token-user:dave@acme.example");
    }

    /** One of the world's people by first name: alice, bob, carol, or dave for any other. */
    Caller caller(String who) {
        return switch (who) {
            case "alice" -> alice;
            case "bob" -> bob;
            case "carol" -> carol;
            default -> dave;
        };
    }

    /** Loads a catalog over the one there, as a restart with another catalog file does. */
    void reload(Catalog c) {
        new LoadCatalog(ports.transactions(), ports.catalog(), ports.access()).load(c);
    }

    private static CatalogPrincipal principal(String id, RoleBinding binding) {
        return new CatalogPrincipal(id, Ids.sha256Hex("token-" + id), false, List.of(binding));
    }

    /** A valid standard create of the platform's pool in us-central1-a, with one GPU node pool; change it field by field. */
    public static Create standard(String name) {
        return new Create(name);
    }

    /** A valid autopilot create (no node pools) in us-central1-a. */
    public static Create autopilot(String name) {
        return new Create(name).mode(ClusterMode.AUTOPILOT).nodePools();
    }

    /** A node pool of two {@code a3-highgpu-8g} nodes, every optional field at its default; change it field by field. */
    public static PoolSpec nodePool(String name) {
        return new PoolSpec(name);
    }

    /** {@code kubernetesClusters.create}'s command, built field by field from a valid one. */
    public static final class Create {
        private String tenantId = "acme";
        private String projectId;
        private String poolId = POOL;
        private final String name;
        private ClusterMode mode = ClusterMode.STANDARD;
        private String location = "us-central1-a";
        private ReleaseChannel releaseChannel = ReleaseChannel.REGULAR;
        private String version;
        private String networkId;
        private List<String> authorizedNetworks = List.of();
        private boolean privateNodes;
        private String description;
        private List<NodePoolSpec> nodePools = List.of(nodePool("gpu").spec());
        private String idempotencyKey;

        Create(String name) {
            this.name = name;
            this.idempotencyKey = "key-" + name;
        }

        public Create tenantId(String v) { tenantId = v; return this; }
        public Create projectId(String v) { projectId = v; return this; }
        public Create poolId(String v) { poolId = v; return this; }
        public Create mode(ClusterMode v) { mode = v; return this; }
        public Create location(String v) { location = v; return this; }
        public Create releaseChannel(ReleaseChannel v) { releaseChannel = v; return this; }
        public Create version(String v) { version = v; return this; }
        public Create networkId(String v) { networkId = v; return this; }
        public Create authorizedNetworks(String... v) { authorizedNetworks = List.of(v); return this; }
        public Create privateNodes(boolean v) { privateNodes = v; return this; }
        public Create description(String v) { description = v; return this; }
        public Create idempotencyKey(String v) { idempotencyKey = v; return this; }

        public Create nodePools(PoolSpec... pools) {
            nodePools = java.util.Arrays.stream(pools).map(PoolSpec::spec).toList();
            return this;
        }

        public CreateClusterCommand command() {
            return new CreateClusterCommand(tenantId, projectId, poolId, name, mode, location, releaseChannel, version, networkId,
                    authorizedNetworks, privateNodes, description, nodePools, idempotencyKey);
        }

        @Override
        public String toString() {
            return command().toString();
        }
    }

    /** A node pool's spec, built field by field from a valid one. */
    public static final class PoolSpec {
        private final String name;
        private String machineType = "a3-highgpu-8g";
        private int nodeCount = 2;
        private Autoscaling autoscaling;
        private List<String> zones = List.of();
        private Map<String, String> labels = Map.of();
        private List<Taint> taints = List.of();

        PoolSpec(String name) {
            this.name = name;
        }

        public PoolSpec machineType(String v) { machineType = v; return this; }
        public PoolSpec nodeCount(int v) { nodeCount = v; return this; }
        public PoolSpec autoscaling(int min, int max) { autoscaling = new Autoscaling(min, max); return this; }
        public PoolSpec zones(String... v) { zones = List.of(v); return this; }
        public PoolSpec labels(Map<String, String> v) { labels = v; return this; }
        public PoolSpec taints(Taint... v) { taints = List.of(v); return this; }

        public NodePoolSpec spec() {
            return new NodePoolSpec(name, machineType, nodeCount, autoscaling, NodePoolSpec.DEFAULT_DISK_GIB,
                    NodePoolSpec.DEFAULT_DISK_TYPE, false, null, zones, labels, taints);
        }
    }

    Cluster create(Caller caller, Create create) {
        return this.create.create(caller, create.command());
    }

    Cluster get(Caller caller, String tenantId, String clusterId) {
        return get.get(caller, new ClusterRef(tenantId, clusterId));
    }

    Cluster delete(Caller caller, String tenantId, String clusterId) {
        return delete.delete(caller, new ClusterRef(tenantId, clusterId));
    }

    /** {@code update} of the cluster's description alone. */
    Cluster describe(Caller caller, String tenantId, String clusterId, String description) {
        return update.update(caller, new UpdateClusterCommand(tenantId, clusterId, null, null, null, description));
    }

    /** The tenant's clusters, deleted ones too when asked. */
    List<Cluster> list(Caller caller, String tenantId, boolean includeDeleted) {
        return list.list(caller, new ListClustersQuery(tenantId, null, null, includeDeleted));
    }

    /** The fields an {@code INVALID_INPUT} names, in its order. */
    @SuppressWarnings("unchecked")
    public static List<String> fields(DomainException e) {
        Object fields = e.details().get("fields");
        if (fields == null) {
            return List.of(String.valueOf(e.details().get("field")));
        }
        return ((List<Map<String, Object>>) fields).stream().map(f -> (String) f.get("field")).toList();
    }

    List<String> eventTypes() {
        return ports.outbox().all().stream().map(e -> e.event().type()).toList();
    }
}
