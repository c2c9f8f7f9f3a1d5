package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.access.Caller;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.market.EffectiveLimitPolicy;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.NodeGrant;
import com.bettercompute.domain.market.RequestPhase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /api/k8s/requests?cluster=}: the cluster's market requests with phase, reason, message,
 * grants and the attempt's own episode (when it was filed, first ran and ended), and the Run History: each
 * job once, with every attempt's episode in order. Needs read on the cluster. The open requests in filing
 * order, then the latest {@value #CLOSED_SHOWN} that left the market, the latest first. Phases (docs/tenants/market.md):
 * {@code queued} (over the max cluster size, not filed), {@code waiting}, {@code provisioning},
 * {@code provisioned}, {@code notice}, {@code revoked} (the market took its nodes; its job goes on as the
 * next attempt), {@code ended} (its job ended or was withdrawn).
 */
public final class ListClusterRequests {
    /** How many requests that left the market a list shows, at most: the latest. */
    public static final int CLOSED_SHOWN = 100;

    /**
     * A job as people name it: its kind, namespace and name, read from the market's job id of a job in the cluster
     * ({@code <cluster id>/<namespace>/<name>} for a Job, {@code <cluster id>/<namespace>/<Kind>:<name>} for any
     * other kind); an id of another form is only a name.
     */
    public record Job(String kind, String namespace, String name) {
        static Job of(String clusterId, String jobId) {
            String prefix = clusterId + "/";
            if (!jobId.startsWith(prefix)) {
                return new Job(null, null, jobId);
            }
            String[] parts = jobId.substring(prefix.length()).split("/", 2);
            if (parts.length < 2) {
                return new Job(null, null, jobId);
            }
            // a Kubernetes name never holds a colon: the first one ends the kind
            int colon = parts[1].indexOf(':');
            return colon < 0 ? new Job("Job", parts[0], parts[1])
                    : new Job(parts[1].substring(0, colon), parts[0], parts[1].substring(colon + 1));
        }
    }

    /**
     * One attempt of the job: queued when filed, running once its gang was provisioned, then ended
     * ({@code end}: {@code revoked} or {@code ended}; null while open).
     */
    public record Episode(int attempt, Instant queuedAt, Instant runningAt, Instant endedAt, String end) {
    }

    /** A job's Run History: each of its attempts' episodes, in filing order. */
    public record Runs(Job job, List<Episode> episodes) {
        public Runs {
            episodes = List.copyOf(episodes);
        }
    }

    /** The requests as {@link #list} gives them, and the Run History of the cluster's jobs, the latest filed first. */
    public record View(List<Item> items, List<Runs> runs) {
        public View {
            items = List.copyOf(items);
            runs = List.copyOf(runs);
        }
    }

    public record Item(String id, Job job, int attempt, String pool, int nodes, int gpus, Money limitPrice,
                       String limitSource, String priority, String phase, String reason, String message,
                       int grantedNodes, Money lockedRate, Instant holdUntil, Instant protectedUntil,
                       Instant noticeDeadline, Instant filedAt, List<Episode> episodes) {
        /** @param episodes this attempt's own: one, or none where the repository has not recorded it */
        public Item {
            episodes = List.copyOf(episodes);
        }
    }

    private final MarketCallers callers;
    private final MarketRepository markets;

    public ListClusterRequests(MarketCallers callers, MarketRepository markets) {
        this.callers = callers;
        this.markets = markets;
    }

    public List<Item> list(Caller caller, String org, String name) {
        return read(caller, org, name).items();
    }

    /** The requests and the Run History of the cluster's jobs; at most {@value #CLOSED_SHOWN} jobs' histories. */
    public View read(Caller caller, String org, String name) {
        Cluster cluster = callers.cluster(caller, org, name, Action.READ);
        Market market = markets.load();
        Bids.requireEnrolled(market, cluster);
        java.util.Map<String, Episode> byRequest = new java.util.HashMap<>();
        java.util.Map<String, List<Episode>> byJob = new java.util.LinkedHashMap<>();
        for (MarketRepository.Episode e : markets.episodes(cluster.id())) {
            Episode episode = new Episode(e.attempt(), e.queuedAt(), e.runningAt(), e.endedAt(), e.end());
            byRequest.put(e.requestId(), episode);
            // a job filed again moves to the end: the latest filed last, reversed below
            List<Episode> runs = byJob.remove(e.jobId());
            byJob.put(e.jobId(), runs == null ? new ArrayList<>(List.of(episode)) : runs);
            if (runs != null) {
                runs.add(episode);
            }
        }
        List<Item> items = new ArrayList<>();
        for (MarketRequest r : market.openRequests()) {
            if (r.clusterId().equals(cluster.id())) {
                items.add(item(market, r, byRequest.get(r.id())));
            }
        }
        for (MarketRepository.Closed c : markets.closed(cluster.id(), CLOSED_SHOWN)) {
            items.add(closedItem(market, c, byRequest.get(c.last().id())));
        }
        List<Runs> runs = new ArrayList<>();
        byJob.forEach((jobId, episodes) -> runs.add(0, new Runs(Job.of(cluster.id(), jobId), episodes)));
        return new View(items, runs.subList(0, Math.min(runs.size(), CLOSED_SHOWN)));
    }

    /** A request that left the market, as it left: no nodes any more, its limit as it would bid now. */
    static Item closedItem(Market market, MarketRepository.Closed c, Episode episode) {
        MarketSnapshot.RequestState r = c.last();
        Money clusterLimit = market.hasCluster(r.clusterId()) ? market.cluster(r.clusterId()).limit() : null;
        Episode own = episode != null ? episode : new Episode(r.attempt(), r.createdAt(), null, c.endedAt(), c.end());
        return new Item(r.id(), Job.of(r.clusterId(), r.jobId()), r.attempt(), r.pool().toString(), r.nodes(), r.gpus(),
                Money.ofMicros(EffectiveLimitPolicy.limit(r.jobLimit(), clusterLimit)),
                r.jobLimit() != null ? "job" : "cluster", r.priority().name().toLowerCase(Locale.ROOT),
                MarketRepository.Episode.REVOKED.equals(c.end()) ? "revoked" : "ended", r.reason().wire(), r.message(),
                0, r.lockedRate(), null, r.protectedUntil(), null, r.createdAt(), List.of(own));
    }

    /** @param episode the request's own episode as the repository recorded it; null: not recorded yet */
    static Item item(Market market, MarketRequest r, Episode episode) {
        Instant holdUntil = null;
        Instant runningAt = null;
        for (String nodeId : r.grantedNodeIds()) {
            NodeGrant g = market.node(nodeId).grant();
            if (g != null && g.holdUntil() != null && (holdUntil == null || g.holdUntil().isBefore(holdUntil))) {
                holdUntil = g.holdUntil();
            }
            if (g != null && g.readyAt() != null && (runningAt == null || g.readyAt().isAfter(runningAt))) {
                runningAt = g.readyAt();
            }
        }
        Episode own = episode != null ? episode
                : new Episode(r.attempt(), r.createdAt(), r.provisioned() ? runningAt : null, null, null);
        return new Item(r.id(), Job.of(r.clusterId(), r.jobId()), r.attempt(), r.pool().toString(), r.nodes(), r.gpus(),
                r.effectiveLimit(), r.jobLimit() != null ? "job" : "cluster", r.priority().name().toLowerCase(Locale.ROOT),
                phase(r), r.reason().wire(), r.message(), grantedNodes(r), r.lockedRate(), holdUntil,
                r.protectedUntil(), r.noticeDeadline(), r.createdAt(), List.of(own));
    }

    /** The nodes a request runs on: its granted nodes, or the one block node a seated sub-node request shares. */
    static int grantedNodes(MarketRequest r) {
        return r.phase() == RequestPhase.SEATED && r.blockNodeId() != null ? 1 : r.grantedNodes();
    }

    /** The API's phase of a request. */
    static String phase(MarketRequest r) {
        RequestPhase p = r.phase();
        return switch (p) {
            case QUEUED -> "queued";
            case WAITING -> "waiting";
            case ADMITTED -> r.provisioned() ? "provisioned" : "provisioning";
            case RECLAIMING -> "notice";
            case SEATED -> "provisioned";
            case REVOKED -> "revoked";
            case CLOSED -> "ended";
        };
    }
}
