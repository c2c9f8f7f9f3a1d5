package com.bettercompute.adapters.http.console;

import com.bettercompute.application.cluster.ListClustersQuery;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.market.ListClusterRequests;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.market.ReadBalance;
import com.bettercompute.application.market.ReadMarketCluster;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolTick;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.bettercompute.adapters.http.console.Words.time;
import static com.bettercompute.adapters.http.console.Words.usd;

/**
 * The market's pages: a cluster's Workloads (every request with its reason in words and its Run History, and
 * each Service of type LoadBalancer with its endpoint)
 * and Nodes (tiles), the Market (a chart per pool, following the feed's server-sent events) and the
 * organization's Balance.
 */
final class MarketPages {
    /** The ticks a pool's chart draws: the latest. */
    static final int CHART_TICKS = 180;
    private static final Set<String> LEFT = Set.of("ended", "revoked");

    private final Console console;
    private final Console.FeedStream feed;
    private final Clock clock;

    MarketPages(Console console, Console.FeedStream feed, Clock clock) {
        this.console = console;
        this.feed = feed;
        this.clock = clock;
    }

    void install(Pages pages) {
        pages.get("/clusters/{id}/workloads", this::workloads);
        pages.get("/clusters/{id}/nodes", this::nodes);
        pages.get("/market", this::market);
        pages.get("/market/chart", this::chart);
        pages.get("/market/feed", v -> feed.serve(v.caller(), v.ctx()));
        pages.get("/balance", this::balance);
    }

    private void workloads(Pages.Visit v) {
        Cluster c = ClusterPages.cluster(console, v);
        ReadMarketCluster.View mc = console.console.marketCluster().read(v.caller(), v.org(), c.name());
        List<ListClusterRequests.Item> items = console.market.requests().list(v.caller(), v.org(), c.name());
        Instant now = clock.instant();
        List<Model.WorkloadRow> open = new ArrayList<>();
        List<Model.WorkloadRow> closed = new ArrayList<>();
        for (ListClusterRequests.Item i : items) {
            ReadMarketCluster.Marks marks = mc.marks().get(i.id());
            Model.WorkloadRow row = row(i, marks, now);
            (LEFT.contains(i.phase()) ? closed : open).add(row);
        }
        console.html(v.ctx(), 200, "workloads.jte", new Model.WorkloadsPage(
                v.chrome("Workloads · " + c.name(), "clusters", ClusterPages.nav(c, true, "workloads"), "reload"),
                mc.maxClusterGpus(), mc.usedGpus(), usd(mc.limit()), open, closed, services(v, c)));
    }

    /** The cluster's Services of type LoadBalancer with their endpoints, as the platform holds them. */
    private List<Model.ServiceRow> services(Pages.Visit v, Cluster c) {
        if (console.console.loadBalancers() == null) {
            return null;
        }
        List<Model.ServiceRow> rows = new ArrayList<>();
        for (ListLoadBalancers.Held h : console.console.loadBalancers().ofCluster(v.caller(), c)) {
            LoadBalancer lb = h.lb();
            String ports = lb.ports().stream().map(p -> p + "/TCP").collect(java.util.stream.Collectors.joining(", "));
            rows.add(new Model.ServiceRow(lb.namespace() + "/" + lb.service(), lb.address(), ports,
                    lb.state().name().toLowerCase(java.util.Locale.ROOT), lb.refusalText()));
        }
        return rows;
    }

    static Model.WorkloadRow row(ListClusterRequests.Item i, ReadMarketCluster.Marks marks, Instant now) {
        List<String> shown = new ArrayList<>();
        boolean capacity = false;
        if (marks != null) {
            if (marks.gangScheduled()) {
                shown.add("gang scheduled");
            }
            if (marks.replacementPending()) {
                shown.add("Replacement Pending");
            }
            if (marks.protectedAtClusterRate()) {
                shown.add("protected at the cluster's locked rate");
            }
            if (marks.capacityUnavailable()) {
                shown.add(Words.CAPACITY_UNAVAILABLE);
                capacity = true;
            }
        }
        String job = i.job().namespace() == null ? i.job().name() : i.job().namespace() + "/" + i.job().name();
        List<Model.EpisodeRow> episodes = new ArrayList<>();
        Duration queued = Duration.ZERO;
        Duration ran = Duration.ZERO;
        int n = 0;
        for (ListClusterRequests.Episode e : i.episodes()) {
            Instant end = e.endedAt() != null ? e.endedAt() : now;
            Duration q = e.queuedAt() == null ? Duration.ZERO : Duration.between(e.queuedAt(), e.runningAt() != null ? e.runningAt() : end);
            Duration r = e.runningAt() == null ? Duration.ZERO : Duration.between(e.runningAt(), end);
            queued = queued.plus(q);
            ran = ran.plus(r);
            episodes.add(new Model.EpisodeRow(++n, time(e.queuedAt()), time(e.runningAt()), time(e.endedAt()), e.end(),
                    Words.duration(q), e.runningAt() == null ? "—" : Words.duration(r)));
        }
        ListClusterRequests.Episode current = i.episodes().isEmpty() ? null : i.episodes().get(i.episodes().size() - 1);
        boolean ended = current != null && current.endedAt() != null;
        return new Model.WorkloadRow(i.id(), job, i.attempt(), i.pool(), i.gpus(), i.nodes(), usd(i.limitPrice()),
                i.limitSource(), i.priority(), i.phase(), i.reason(), Words.reason(i.reason(), capacity), shown,
                i.grantedNodes(), usd(i.lockedRate()),
                current == null || ended ? null : time(current.queuedAt()),
                current == null || ended ? null : time(current.runningAt()),
                episodes, Words.duration(queued), Words.duration(ran));
    }

    private void nodes(Pages.Visit v) {
        Cluster c = ClusterPages.cluster(console, v);
        ReadMarketCluster.View mc = console.console.marketCluster().read(v.caller(), v.org(), c.name());
        List<Model.NodeTile> tiles = mc.nodes().stream().map(MarketPages::tile).toList();
        console.html(v.ctx(), 200, "nodes.jte", new Model.NodesPage(
                v.chrome("Nodes · " + c.name(), "clusters", ClusterPages.nav(c, true, "nodes"), "reload"), tiles));
    }

    static Model.NodeTile tile(ReadMarketCluster.NodeTile n) {
        String state = switch (n.state()) {
            case JOINING -> "Joining";
            case READY -> "Ready";
            case IDLE -> "Idle";
            case DRAINING_UNDER_NOTICE -> "Draining under notice";
            case NODE_FIX_IN_PROGRESS -> "Node Fix In Progress";
        };
        String cls = n.state().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        return new Model.NodeTile(n.node(), n.pool(), n.job() == null ? null : shortJob(n.job()), usd(n.lockedRate()), time(n.holdUntil()),
                time(n.protectedUntil()), state, cls, time(n.deadline()), n.replacement());
    }

    /** A job id as people name the job: {@code namespace/name}, without the cluster and kind before them. */
    static String shortJob(String jobId) {
        String[] parts = jobId.split("/");
        return parts.length >= 2 ? parts[parts.length - 2] + "/" + parts[parts.length - 1] : jobId;
    }

    private void market(Pages.Visit v) {
        List<Model.PoolChart> charts = new ArrayList<>();
        for (String pool : console.market.feed().pools()) {
            charts.add(chart(pool));
        }
        console.html(v.ctx(), 200, "market.jte", new Model.MarketPage(v.chrome("Market", "market", null, "chart"), charts));
    }

    private Model.PoolChart chart(String pool) {
        List<PoolTick> ticks = console.market.feed().recent(pool, CHART_TICKS);
        PoolTick last = ticks.isEmpty() ? null : ticks.get(ticks.size() - 1);
        return new Model.PoolChart(pool, pool.replaceAll("[^a-z0-9]", "-"), Chart.svg(pool, ticks),
                last == null ? null : usd(last.price()), last == null ? null : usd(last.reserve()),
                last == null ? 0 : last.supply(), last == null ? 0 : last.demand(), last == null ? 0 : last.granted(),
                last == null ? null : time(last.at()));
    }

    /** One pool's chart alone (SVG), for the Market page's script to swap in as the feed moves. */
    private void chart(Pages.Visit v) {
        String pool = v.ctx().queryParam("pool");
        if (pool == null || !console.market.feed().pools().contains(pool)) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No such pool.");
        }
        Console.headers(v.ctx());
        v.ctx().contentType("image/svg+xml; charset=utf-8").result(Chart.svg(pool, console.market.feed().recent(pool, CHART_TICKS)));
    }

    private void balance(Pages.Visit v) {
        ReadBalance.Balance b = console.market.balance().read(v.caller(), v.org());
        Map<String, String> names = new HashMap<>();
        for (Cluster c : console.api.listClusters().list(v.caller(), new ListClustersQuery(v.org(), null, null, true))) {
            names.put(c.id(), c.name());
        }
        Map<String, Long> micros = new LinkedHashMap<>();
        Map<String, Long> gpuSeconds = new LinkedHashMap<>();
        for (MarketLedger.HourlyCharge h : console.market.gpuUsage().read(v.caller(), v.org(), 1000)) {
            String key = names.getOrDefault(h.clusterId(), h.clusterId()) + "\n" + h.pool();
            micros.merge(key, h.amount().micros(), Long::sum);
            gpuSeconds.merge(key, h.gpuSeconds(), Long::sum);
        }
        List<Model.ChargeTotal> totals = new ArrayList<>();
        for (var e : micros.entrySet()) {
            String[] k = e.getKey().split("\n", 2);
            totals.add(new Model.ChargeTotal(k[0], k[1], usd(Money.ofMicros(e.getValue())),
                    BigDecimal.valueOf(gpuSeconds.get(e.getKey())).divide(BigDecimal.valueOf(3600), 2, RoundingMode.HALF_UP).toPlainString()));
        }
        List<Model.LedgerRow> ledger = b.entries().stream().map(e -> new Model.LedgerRow(e.kind(), time(e.at()), usd(e.amount()),
                e.clusterId() == null ? null : names.getOrDefault(e.clusterId(), e.clusterId()), e.pool(), e.node(), usd(e.rate()),
                e.gpus() == null ? null : e.gpus().toString(), time(e.from()), time(e.to()), e.note())).toList();
        console.html(v.ctx(), 200, "balance.jte", new Model.BalancePage(v.chrome("Balance", "balance", null, null), b.org(),
                usd(b.credits()), usd(b.charged()), usd(b.balance()), totals, ledger));
    }
}
