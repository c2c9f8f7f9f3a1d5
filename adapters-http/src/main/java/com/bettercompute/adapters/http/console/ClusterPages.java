package com.bettercompute.adapters.http.console;

import com.bettercompute.adapters.http.ApiBodies;
import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.ListClustersQuery;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.market.Bids;
import com.bettercompute.application.market.ReadMarketCluster;
import com.bettercompute.application.nodepool.NodePoolRef;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.market.Money;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.bettercompute.adapters.http.console.Words.time;
import static com.bettercompute.adapters.http.console.Words.usd;

/**
 * The Clusters page (the organization's clusters, the create form) and a cluster's page (its state and
 * versions, node pools, limit price, how to connect, events, delete); every form goes to the use case the
 * API's method calls, bound as the API binds its body.
 */
final class ClusterPages {
    /** How many of the organization's latest events a cluster's timeline reads through, and shows. */
    private static final int EVENT_PAGES = 20;
    private static final int EVENTS_SHOWN = 50;

    /**
     * The shape of an id in a path, looser than the API's patterns on purpose: any id that is not the
     * organization's is the same 404 whatever its shape; this only keeps junk away from the stores.
     */
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("^kcl_[0-9a-z]{1,60}$");
    private static final java.util.regex.Pattern POOL_ID = java.util.regex.Pattern.compile("^knp_[0-9a-z]{1,60}$");

    private final Console console;

    ClusterPages(Console console) {
        this.console = console;
    }

    void install(Pages pages) {
        pages.get("/clusters", v -> list(v, emptyCreateForm(v), 200));
        pages.post("/clusters", this::create);
        pages.get("/clusters/{id}", v -> show(v, cluster(console, v), PageForms.none(), 200));
        pages.post("/clusters/{id}/node-pools", this::addPool);
        pages.post("/clusters/{id}/node-pools/{pool}/resize", this::resize);
        pages.post("/clusters/{id}/node-pools/{pool}/delete", this::deletePool);
        pages.post("/clusters/{id}/limit-price", this::setLimit);
        pages.post("/clusters/{id}/limit-price/withdraw", this::withdrawLimit);
        pages.post("/clusters/{id}/delete", this::delete);
    }

    /** The forms of a cluster's page, one of them possibly sent back with its problems. */
    record PageForms(Model.Form addPool, Model.Form resize, Model.Form limit, Model.Form delete) {
        static PageForms none() {
            return new PageForms(Model.Form.EMPTY, Model.Form.EMPTY, Model.Form.EMPTY, Model.Form.EMPTY);
        }
    }

    private Model.Form emptyCreateForm(Pages.Visit v) {
        return new Model.Form(Map.of("idempotencyKey", Forms.newKey(), "mode", "standard"), Map.of(), null);
    }

    private List<Cluster> clusters(Pages.Visit v) {
        return console.api.listClusters().list(v.caller(), new ListClustersQuery(v.org(), null, null, false));
    }

    private void list(Pages.Visit v, Model.Form form, int status) {
        List<Cluster> clusters = clusters(v);
        Model.Form shown = form;
        if (form.value("poolId").isEmpty() && !clusters.isEmpty()) {
            // the pool the organization already uses is the likely one for the next cluster
            Map<String, String> values = new LinkedHashMap<>(form.values());
            values.put("poolId", clusters.get(0).poolId());
            shown = new Model.Form(values, form.errors(), form.message());
        }
        List<Model.ClusterRow> rows = clusters.stream().map(c -> new Model.ClusterRow(c.id(), c.name(), c.mode().wire(),
                c.location(), c.state().wire(), c.kubernetesVersion() == null ? "—" : c.kubernetesVersion(),
                time(c.createdAt()))).toList();
        console.html(v.ctx(), status, "clusters.jte", new Model.ClustersPage(v.chrome("Clusters", "clusters", null, null), rows,
                shown, List.copyOf(CreateClusterCommand.MODES.keySet())));
    }

    private void create(Pages.Visit v) {
        Map<String, String> typed = typed(v, "name", "mode", "location", "poolId", "idempotencyKey",
                "nodePools", "nodePools[0].name", "nodePools[0].machineType", "nodePools[0].nodeCount");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", v.org());
        Forms.put(body, "poolId", typed.get("poolId"));
        Forms.put(body, "name", typed.get("name"));
        Forms.put(body, "mode", typed.get("mode"));
        Forms.put(body, "location", typed.get("location"));
        boolean pool = !(typed.get("nodePools[0].name") + typed.get("nodePools[0].machineType") + typed.get("nodePools[0].nodeCount")).isEmpty();
        if (pool) {
            Map<String, Object> np = new LinkedHashMap<>();
            Forms.put(np, "name", typed.get("nodePools[0].name"));
            Forms.put(np, "machineType", typed.get("nodePools[0].machineType"));
            Forms.put(np, "nodeCount", Forms.number(typed.get("nodePools[0].nodeCount")));
            body.put("nodePools", List.of(np));
        }
        Forms.put(body, "idempotencyKey", typed.get("idempotencyKey"));
        try {
            Cluster created = console.api.createCluster().create(v.caller(), ApiBodies.createCluster(body));
            Pages.seeOther(v.ctx(), "/clusters/" + created.id() + Flash.query("created", created.name()));
        } catch (DomainException e) {
            if (e.code() == ErrorCode.INTERNAL || e.code() == ErrorCode.UNAUTHENTICATED) {
                throw e;
            }
            list(v, Forms.refused(typed, e, Map.of()), ApiBodies.status(e.code()));
        }
    }

    /** The organization's cluster of the path; {@code NOT_FOUND} (the 404 page) for any other id. */
    static Cluster cluster(Console console, Pages.Visit v) {
        String id = v.ctx().pathParam("id");
        if (!ID.matcher(id).matches()) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No such cluster.");
        }
        Cluster c = console.api.getCluster().get(v.caller(), new ClusterRef(v.org(), id));
        if (c.state() == ClusterState.DELETED) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No such cluster.");
        }
        return c;
    }

    /** The cluster's tabs; the market's only when the market manages it. */
    static Model.ClusterNav nav(Cluster c, boolean market, String tab) {
        return new Model.ClusterNav(c.id(), c.name(), market, tab);
    }

    private void show(Pages.Visit v, Cluster c, PageForms forms, int status) {
        Model.MarketPanel market = null;
        try {
            Bids.BidView bid = console.market.bids().read(v.caller(), v.org(), c.name());
            ReadMarketCluster.View mc = console.console.marketCluster().read(v.caller(), v.org(), c.name());
            market = new Model.MarketPanel(mc.maxClusterGpus(), mc.usedGpus(), usd(bid.limit()), bid.bidTooLow(),
                    time(bid.updatedAt()), bid.pools().stream().map(p -> new Model.PoolPrice(p.pool(), usd(p.reserve()),
                    usd(p.lastPrice()))).toList());
        } catch (DomainException e) {
            if (e.code() != ErrorCode.NOT_FOUND) {
                throw e;
            }
            // not market-managed (or not yet enrolled): the page has no market parts
        }
        String server = v.ctx().scheme() + "://" + v.ctx().host();
        Model.ClusterDetail detail = new Model.ClusterDetail(c.id(), c.name(), c.state().wire(), c.message(), c.mode().wire(),
                c.location(), c.releaseChannel().wire(), c.requestedVersion(), c.kubernetesVersion(), c.nodeVersion(),
                c.endpoint(), time(c.createdAt()), time(c.readyAt()), c.description());
        List<Model.PoolRow> pools = c.nodePools().stream().filter(p -> p.state() != ClusterState.DELETED)
                .map(ClusterPages::poolRow).toList();
        String kubeconfig = "curl -fsSL -H \"Authorization: Bearer $BC_TOKEN\" \"" + server
                + "/api/k8s/cluster/kubeconfig?cluster=" + c.name() + "\" > " + c.name() + ".kubeconfig";
        String setup = "curl -fsSL " + server + "/setup.sh | sh -s -- you@example.com " + c.name();
        console.html(v.ctx(), status, "cluster.jte", new Model.ClusterPage(
                v.chrome(c.name(), "clusters", nav(c, market != null, "overview"), null), detail, pools, events(v, c),
                market, StoragePages.panel(console, c), forms.addPool().values().isEmpty() ? new Model.Form(Map.of("idempotencyKey", Forms.newKey()), Map.of(), null)
                : forms.addPool(), forms.resize(), forms.limit(), forms.delete(), kubeconfig, setup));
    }

    private static Model.PoolRow poolRow(NodePool p) {
        var acc = p.spec().accelerators();
        return new Model.PoolRow(p.id(), p.spec().name(), p.spec().machineType(), p.spec().nodeCount(),
                acc == null ? "—" : acc.count() + " × " + acc.type(), p.state().wire(), p.message());
    }

    /** The cluster's latest events, newest first, read through the organization's latest events. */
    private List<Model.EventRow> events(Pages.Visit v, Cluster c) {
        Deque<StoredEvent> mine = new ArrayDeque<>();
        long after = 0;
        for (int page = 0; page < EVENT_PAGES; page++) {
            ReadEvents.Page p = console.api.readEvents().read(v.caller(), after, ReadEvents.MAX_LIMIT, v.org());
            for (StoredEvent e : p.items()) {
                if (c.id().equals(e.event().subjectId()) || c.id().equals(e.event().data().get("clusterId"))) {
                    mine.addFirst(e);
                    if (mine.size() > EVENTS_SHOWN) {
                        mine.removeLast();
                    }
                }
            }
            if (p.next() == after) {
                break;
            }
            after = p.next();
        }
        List<Model.EventRow> rows = new ArrayList<>();
        for (StoredEvent e : mine) {
            rows.add(new Model.EventRow(time(e.event().occurredAt()), e.event().type(), Words.event(e.event().type())));
        }
        return rows;
    }

    private void addPool(Pages.Visit v) {
        Cluster c = cluster(console, v);
        Map<String, String> typed = typed(v, "name", "machineType", "nodeCount", "idempotencyKey");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", v.org());
        body.put("clusterId", c.id());
        Forms.put(body, "idempotencyKey", typed.get("idempotencyKey"));
        Forms.put(body, "name", typed.get("name"));
        Forms.put(body, "machineType", typed.get("machineType"));
        Forms.put(body, "nodeCount", Forms.number(typed.get("nodeCount")));
        try {
            NodePool added = console.nodePools.createNodePool().create(v.caller(), ApiBodies.createNodePool(body));
            Pages.seeOther(v.ctx(), "/clusters/" + c.id() + Flash.query("pool-added", added.spec().name()));
        } catch (DomainException e) {
            refuse(e);
            show(v, c, new PageForms(Forms.refused(typed, e, Map.of()), Model.Form.EMPTY, Model.Form.EMPTY, Model.Form.EMPTY),
                    ApiBodies.status(e.code()));
        }
    }

    private void resize(Pages.Visit v) {
        Cluster c = cluster(console, v);
        String poolId = v.ctx().pathParam("pool");
        String field = poolId + ".nodeCount";
        Map<String, String> typed = Map.of(field, v.form("nodeCount"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("tenantId", v.org());
        body.put("clusterId", c.id());
        body.put("nodePoolId", poolId);
        Forms.put(body, "nodeCount", Forms.number(v.form("nodeCount")));
        try {
            NodePool p = console.nodePools.updateNodePool().update(v.caller(), ApiBodies.updateNodePool(body));
            Pages.seeOther(v.ctx(), "/clusters/" + c.id() + Flash.query("pool-resized", p.spec().name()));
        } catch (DomainException e) {
            refuse(e);
            Model.Form form = Forms.refused(typed, e, Map.of("nodeCount", field, "", field));
            show(v, c, new PageForms(Model.Form.EMPTY, form, Model.Form.EMPTY, Model.Form.EMPTY), ApiBodies.status(e.code()));
        }
    }

    private void deletePool(Pages.Visit v) {
        Cluster c = cluster(console, v);
        String poolId = v.ctx().pathParam("pool");
        if (!POOL_ID.matcher(poolId).matches()) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No such node pool.");
        }
        try {
            NodePool p = console.nodePools.deleteNodePool().delete(v.caller(), new NodePoolRef(v.org(), c.id(), poolId));
            Pages.seeOther(v.ctx(), "/clusters/" + c.id() + Flash.query("pool-deleted", p.spec().name()));
        } catch (DomainException e) {
            refuse(e);
            show(v, c, new PageForms(Model.Form.EMPTY, new Model.Form(Map.of(), Map.of(), e.getMessage()), Model.Form.EMPTY,
                    Model.Form.EMPTY), ApiBodies.status(e.code()));
        }
    }

    private void setLimit(Pages.Visit v) {
        Cluster c = cluster(console, v);
        Map<String, String> typed = Map.of("limit_price", v.form("limit_price"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("cluster", c.name());
        Forms.put(body, "limit_price", typed.get("limit_price"));
        try {
            Money limit = ApiBodies.limitPrice(body);
            Bids.BidView bid = console.market.bids().set(v.caller(), v.org(), c.name(), limit);
            Pages.seeOther(v.ctx(), "/clusters/" + c.id() + Flash.query("limit-set", "$" + bid.limit()));
        } catch (DomainException e) {
            refuse(e);
            Model.Form form = e.details().get("fields") != null ? Forms.refused(typed, e, Map.of())
                    : Forms.onField(typed, "limit_price", e);
            show(v, c, new PageForms(Model.Form.EMPTY, Model.Form.EMPTY, form, Model.Form.EMPTY), ApiBodies.status(e.code()));
        }
    }

    private void withdrawLimit(Pages.Visit v) {
        Cluster c = cluster(console, v);
        console.market.bids().withdraw(v.caller(), v.org(), c.name());
        Pages.seeOther(v.ctx(), "/clusters/" + c.id() + Flash.query("limit-withdrawn", c.name()));
    }

    private void delete(Pages.Visit v) {
        Cluster c = cluster(console, v);
        String confirm = v.form("confirm");
        // the spec's box, unchecked by default: without it the shared volume is preserved
        boolean deleteVolume = "true".equals(v.form("deleteVolume"));
        if (!confirm.equals(c.name())) {
            Map<String, String> typed = deleteVolume ? Map.of("confirm", confirm, "deleteVolume", "true") : Map.of("confirm", confirm);
            Model.Form form = new Model.Form(typed, Map.of("confirm", "must be the cluster's name, " + c.name() + ", to delete it"), null);
            show(v, c, new PageForms(Model.Form.EMPTY, Model.Form.EMPTY, Model.Form.EMPTY, form), 400);
            return;
        }
        console.api.deleteCluster().delete(v.caller(), new ClusterRef(v.org(), c.id()), deleteVolume);
        Pages.seeOther(v.ctx(), "/clusters" + Flash.query("deleted", c.name()));
    }

    /** A refusal a form shows is the API's answer to a caller's input; anything else is the page's problem. */
    private static void refuse(DomainException e) {
        if (e.code() == ErrorCode.INTERNAL || e.code() == ErrorCode.NOT_FOUND || e.code() == ErrorCode.UNAUTHENTICATED) {
            throw e;
        }
    }

    private static Map<String, String> typed(Pages.Visit v, String... fields) {
        Map<String, String> typed = new LinkedHashMap<>();
        for (String f : fields) {
            typed.put(f, v.form(f));
        }
        return typed;
    }
}
