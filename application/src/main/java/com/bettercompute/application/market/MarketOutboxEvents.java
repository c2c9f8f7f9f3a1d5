package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketEffects;

import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketRequest;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolTick;
import com.bettercompute.domain.market.TenantCluster;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tick's decisions as outbox events, one per decision, in the tick's order, then one
 * {@code market.tick.cleared} per pool. A reason change is not one: the reason is the request's state,
 * read by the requests route, and the in-cluster Events come from {@link MarketEffects}.
 */
public final class MarketOutboxEvents {
    private MarketOutboxEvents() {
    }

    static List<DomainEvent> of(Market market, List<MarketEvent> events, List<PoolTick> feed) {
        Map<String, String> tenants = new HashMap<>();
        for (TenantCluster c : market.clusters()) {
            tenants.put(c.id(), c.tenantId());
        }
        List<DomainEvent> out = new ArrayList<>(events.size() / 2 + feed.size());
        for (MarketEvent e : events) {
            DomainEvent d = of(e, tenants);
            if (d != null) {
                out.add(d);
            }
        }
        for (PoolTick t : feed) {
            out.add(new DomainEvent("market.tick.cleared", null, t.pool().toString(), t.at(), data(
                    "pool", t.pool().toString(), "price", usd(t.price()), "reserve", usd(t.reserve()),
                    "supply", t.supply(), "free", t.free(), "demand", t.demand(), "waiting", t.waiting(),
                    "granted", t.granted())));
        }
        return out;
    }

    /**
     * The outbox event of a decision, null for a reason change. Its tenant is the cluster's; null for a
     * cluster the market no longer knows (the event stays visible to the operator).
     */
    private static DomainEvent of(MarketEvent event, Map<String, String> tenants) {
        String type;
        String clusterId;
        String subject;
        Map<String, Object> data;
        if (event instanceof MarketEvent.RequestFiled e) {
            type = "market.request.filed";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "pool", e.pool().toString(), "gpus", e.gpus());
        } else if (event instanceof MarketEvent.NodeGranted e) {
            type = "market.node.granted";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "pool", e.pool().toString(), "nodeId", e.nodeId(),
                    "grantId", e.grantId(), "lockedRate", usd(e.lockedRate()),
                    "protectedUntil", text(e.protectedUntil()), "replacement", e.replacement());
        } else if (event instanceof MarketEvent.GangProvisioned e) {
            type = "market.request.provisioned";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "pool", e.pool().toString(), "nodes", e.nodes(),
                    "lockedRate", usd(e.lockedRate()));
        } else if (event instanceof MarketEvent.PreemptionNoticed e) {
            type = "market.reclaim.noticed";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "pool", e.pool().toString(),
                    "deadline", text(e.deadline()), "nodeIds", e.nodeIds(), "price", usd(e.price()));
        } else if (event instanceof MarketEvent.GangReclaimedAtOnce e) {
            type = "market.reclaim.immediate";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "pool", e.pool().toString(),
                    "cause", e.cause().name(), "nodeIds", e.nodeIds());
        } else if (event instanceof MarketEvent.ReclaimRescinded e) {
            type = "market.reclaim.rescinded";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "nodeIds", e.nodeIds());
        } else if (event instanceof MarketEvent.GangRevoked e) {
            type = "market.request.revoked";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "requeuedAs", e.requeuedAs());
        } else if (event instanceof MarketEvent.NodeReleased e) {
            type = "market.node.released";
            clusterId = e.clusterId();
            subject = e.nodeId();
            data = data("clusterId", clusterId, "pool", e.pool().toString(), "nodeId", e.nodeId());
        } else if (event instanceof MarketEvent.BlockSeated e) {
            type = "market.request.seated";
            clusterId = e.clusterId();
            subject = e.requestId();
            data = data("jobId", e.jobId(), "clusterId", clusterId, "nodeId", e.nodeId(), "gpus", e.gpus());
        } else {
            return null;
        }
        return new DomainEvent(type, tenants.get(clusterId), subject, event.at(), data);
    }

    /**
     * The outbox event of a market input between ticks: its tenant is the cluster's, null when the input
     * concerns no cluster the market knows (a free node: the operator's).
     */
    public static DomainEvent input(Market market, String type, String clusterId, String subject, Instant at,
                             Object... keysAndValues) {
        String tenant = clusterId != null && market.hasCluster(clusterId) ? market.cluster(clusterId).tenantId() : null;
        return new DomainEvent(type, tenant, subject, at, data(keysAndValues));
    }

    /** {@code market.request.received}: a job's request filed, as its use case and the in-cluster sync write it. */
    public static DomainEvent received(Market market, MarketRequest request, Instant at) {
        return input(market, "market.request.received", request.clusterId(), request.id(), at, "jobId", request.jobId(),
                "clusterId", request.clusterId(), "pool", request.pool().toString(), "gpus", request.gpus(),
                "limit", usd(request.jobLimit()), "priority", request.priority().name());
    }

    /**
     * {@code market.request.held}: a job its cluster's own queue holds back over the max cluster size, recorded in
     * place of {@code market.request.received}: what that event carries, with the max cluster size and the message
     * naming it (the quota is the cause, which the tenant reads and an operator may act on by raising it).
     */
    public static DomainEvent held(Market market, MarketRequest request, Instant at) {
        return input(market, "market.request.held", request.clusterId(), request.id(), at, "jobId", request.jobId(),
                "clusterId", request.clusterId(), "pool", request.pool().toString(), "gpus", request.gpus(),
                "limit", usd(request.jobLimit()), "priority", request.priority().name(),
                "reason", request.reason().wire(), "maxClusterGpus", market.cluster(request.clusterId()).maxGpus(),
                "message", request.message());
    }

    /**
     * {@code market.request.released}: a held job's cluster queue let it file (room freed, or the max cluster size was
     * raised): the hold is over and the request joins the market's queue; {@code market.request.filed} follows as for
     * every request. A held job deleted instead ends its hold with {@code market.request.withdrawn}.
     */
    public static DomainEvent released(Market market, MarketRequest request, Instant at) {
        return input(market, "market.request.released", request.clusterId(), request.id(), at, "jobId", request.jobId(),
                "clusterId", request.clusterId(), "pool", request.pool().toString(), "gpus", request.gpus(),
                "limit", usd(request.jobLimit()), "priority", request.priority().name(),
                "heldSince", text(request.createdAt()));
    }

    /** {@code market.request.limit-changed}: a job's own limit price changed while its request is open. */
    public static DomainEvent limitChanged(Market market, MarketRequest request, Instant at) {
        return input(market, "market.request.limit-changed", request.clusterId(), request.id(), at,
                "jobId", request.jobId(), "clusterId", request.clusterId(), "limit", usd(request.jobLimit()));
    }

    /** {@code market.request.priority-changed}: a job's priority class label changed while its request is open. */
    public static DomainEvent priorityChanged(Market market, MarketRequest request, Instant at) {
        return input(market, "market.request.priority-changed", request.clusterId(), request.id(), at,
                "jobId", request.jobId(), "clusterId", request.clusterId(), "priority", request.priority().name());
    }

    /** {@code market.job.ended}: the job finished; its request closes. */
    public static DomainEvent jobEnded(Market market, MarketRequest request, Instant at) {
        return input(market, "market.job.ended", request.clusterId(), request.id(), at, "jobId", request.jobId(),
                "clusterId", request.clusterId());
    }

    /** {@code market.request.withdrawn}: the job asks no more (its request or the job itself is gone). */
    public static DomainEvent withdrawn(Market market, MarketRequest request, Instant at) {
        return input(market, "market.request.withdrawn", request.clusterId(), request.id(), at,
                "jobId", request.jobId(), "clusterId", request.clusterId());
    }

    private static Map<String, Object> data(Object... keysAndValues) {
        Map<String, Object> data = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            data.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return data;
    }

    private static String usd(Money money) {
        return money == null ? null : money.toString();
    }

    private static String text(Instant at) {
        return at == null ? null : at.toString();
    }
}
