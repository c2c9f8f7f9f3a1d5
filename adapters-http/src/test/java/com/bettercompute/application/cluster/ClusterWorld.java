package com.bettercompute.application.cluster;

import com.bettercompute.adapters.http.Bodies;
import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.fakes.InMemoryPorts;
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
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    public final CreateCluster create = new CreateCluster(ports.transactions(), ports.clusters(), ports.catalog(), ports.access(),
            ports.outbox(), authorizer, ports.clock());
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

    /** Loads a catalog over the one there, as a restart with another catalog file does. */
    void reload(Catalog c) {
        new LoadCatalog(ports.transactions(), ports.catalog(), ports.access()).load(c);
    }

    private static CatalogPrincipal principal(String id, RoleBinding binding) {
        return new CatalogPrincipal(id, Ids.sha256Hex("token-" + id), false, List.of(binding));
    }

    /** A valid standard create body; {@code changes} replace or (with a null value) remove fields. */
    public static Map<String, Object> standard(String name, Object... changes) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", "acme");
        body.put("poolId", POOL);
        body.put("name", name);
        body.put("mode", "standard");
        body.put("location", "us-central1-a");
        body.put("nodePools", new ArrayList<>(List.of(nodePool("gpu"))));
        body.put("idempotencyKey", "key-" + name);
        return changed(body, changes);
    }

    /** The body with {@code changes} (field, value pairs) put in, or removed where the value is null. */
    public static Map<String, Object> changed(Map<String, Object> body, Object... changes) {
        for (int i = 0; i < changes.length; i += 2) {
            if (changes[i + 1] == null) {
                body.remove((String) changes[i]);
            } else {
                body.put((String) changes[i], changes[i + 1]);
            }
        }
        return body;
    }

    static Map<String, Object> autopilot(String name, Object... changes) {
        Map<String, Object> body = standard(name, changes);
        body.put("mode", "autopilot");
        if (body.get("nodePools") instanceof List<?> l && l.size() == 1 && List.of(nodePool("gpu")).equals(l)) {
            body.remove("nodePools");
        }
        return body;
    }

    public static Map<String, Object> nodePool(String name, Object... changes) {
        Map<String, Object> pool = new LinkedHashMap<>();
        pool.put("name", name);
        pool.put("machineType", "a3-highgpu-8g");
        pool.put("nodeCount", 2);
        return changed(pool, changes);
    }

    Cluster create(Caller caller, Map<String, Object> body) {
        return create.create(caller, Bodies.createCluster(body));
    }

    Cluster get(Caller caller, String tenantId, String clusterId) {
        return get.get(caller, new ClusterRef(tenantId, clusterId));
    }

    Cluster delete(Caller caller, String tenantId, String clusterId) {
        return delete.delete(caller, new ClusterRef(tenantId, clusterId));
    }

    Cluster update(Caller caller, Map<String, Object> body) {
        return update.update(caller, Bodies.updateCluster(body));
    }

    List<Cluster> list(Caller caller, Map<String, Object> body) {
        return list.list(caller, Bodies.listClusters(body));
    }

    List<String> eventTypes() {
        return ports.outbox().all().stream().map(e -> e.event().type()).toList();
    }
}
