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
 * grants and episodes (every attempt of the request's job, as the repository recorded them). Needs read on
 * the cluster. The open requests in filing order, then the latest {@value #CLOSED_SHOWN} that left the
 * market, the latest first. Phases (API.md): {@code queued} (over the max cluster size, not filed),
 * {@code waiting}, {@code provisioning}, {@code provisioned}, {@code notice}, {@code revoked} (the market
 * took its nodes; its job goes on as the next attempt), {@code ended} (its job ended or was withdrawn).
 */
public final class ListClusterRequests {
    /** How many requests that left the market a list shows, at most: the latest. */
    public static final int CLOSED_SHOWN = 100;

    /** A job as the request names it: {@code kind/namespace/name}, or only a name when its id has no slashes. */
    public record Job(String kind, String namespace, String name) {
        static Job of(String jobId) {
            String[] parts = jobId.split("/", 3);
            return parts.length == 3 ? new Job(parts[0], parts[1], parts[2]) : new Job(null, null, jobId);
        }
    }

    /** One stretch of the job's life: queued, then running once its gang is provisioned, then ended. */
    public record Episode(Instant queuedAt, Instant runningAt, Instant endedAt, String end) {
    }

    public record Item(String id, Job job, int attempt, String pool, int nodes, int gpus, Money limitPrice,
                       String limitSource, String priority, String phase, String reason, String message,
                       int grantedNodes, Money lockedRate, Instant holdUntil, Instant protectedUntil,
                       Instant noticeDeadline, Instant filedAt, List<Episode> episodes) {
    }

    private final MarketCallers callers;
    private final MarketRepository markets;

    public ListClusterRequests(MarketCallers callers, MarketRepository markets) {
        this.callers = callers;
        this.markets = markets;
    }

    public List<Item> list(Caller caller, String org, String name) {
        Cluster cluster = callers.cluster(caller, org, name, Action.READ);
        Market market = markets.load();
        Bids.requireEnrolled(market, cluster);
        java.util.Map<String, List<Episode>> byJob = new java.util.HashMap<>();
        for (MarketRepository.Episode e : markets.episodes(cluster.id())) {
            byJob.computeIfAbsent(e.jobId(), j -> new ArrayList<>())
                    .add(new Episode(e.queuedAt(), e.runningAt(), e.endedAt(), e.end()));
        }
        List<Item> items = new ArrayList<>();
        for (MarketRequest r : market.openRequests()) {
            if (r.clusterId().equals(cluster.id())) {
                items.add(item(market, r, byJob.get(r.jobId())));
            }
        }
        for (MarketRepository.Closed c : markets.closed(cluster.id(), CLOSED_SHOWN)) {
            items.add(closedItem(market, c, byJob.get(c.last().jobId())));
        }
        return items;
    }

    /** A request that left the market, as it left: no nodes any more, its limit as it would bid now. */
    static Item closedItem(Market market, MarketRepository.Closed c, List<Episode> episodes) {
        MarketSnapshot.RequestState r = c.last();
        Money clusterLimit = market.hasCluster(r.clusterId()) ? market.cluster(r.clusterId()).limit() : null;
        List<Episode> all = episodes != null ? List.copyOf(episodes)
                : List.of(new Episode(r.createdAt(), null, c.endedAt(), c.end()));
        return new Item(r.id(), Job.of(r.jobId()), r.attempt(), r.pool().toString(), r.nodes(), r.gpus(),
                Money.ofMicros(EffectiveLimitPolicy.limit(r.jobLimit(), clusterLimit)),
                r.jobLimit() != null ? "job" : "cluster", r.priority().name().toLowerCase(Locale.ROOT),
                MarketRepository.Episode.REVOKED.equals(c.end()) ? "revoked" : "ended", r.reason().wire(), r.message(),
                0, r.lockedRate(), null, r.protectedUntil(), null, r.createdAt(), all);
    }

    /** @param episodes the job's attempts as the repository recorded them; null: only the open one is known */
    static Item item(Market market, MarketRequest r, List<Episode> episodes) {
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
        List<Episode> all = episodes != null ? List.copyOf(episodes)
                : List.of(new Episode(r.createdAt(), r.provisioned() ? runningAt : null, null, null));
        return new Item(r.id(), Job.of(r.jobId()), r.attempt(), r.pool().toString(), r.nodes(), r.gpus(),
                r.effectiveLimit(), r.jobLimit() != null ? "job" : "cluster", r.priority().name().toLowerCase(Locale.ROOT),
                phase(r), r.reason().wire(), r.message(), grantedNodes(r), r.lockedRate(), holdUntil,
                r.protectedUntil(), r.noticeDeadline(), r.createdAt(), all);
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
