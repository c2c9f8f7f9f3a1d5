package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A request's life before the market, per cluster (docs/decisions/market-rules.md): it
 * queues in its cluster, files with the market from there while the max cluster size allows
 * ({@link ClusterQuotaPolicy}), or, under one node, is seated on the cluster's block ({@link BlockPackingPolicy}).
 */
final class ClusterQueues {
    private final MarketState state;
    private final ChangeLog changes;

    ClusterQueues(MarketState state) {
        this.state = state;
        this.changes = state.changes;
    }

    /**
     * A job's request, new: whole nodes join its cluster's queue, a request under one node waits for the block. Its
     * id is the job's for attempt 1, else {@code <job>#<attempt>}: the caller numbers the attempt after every one the
     * job id had ({@link MarketState#nextAttempt}), so the id is new to the market.
     */
    MarketRequest enqueue(String jobId, int attempt, TenantCluster c, PoolId pool, int gpus, int nodeCount,
                          PriorityClass priority, Instant at, Money jobLimit) {
        String id = attempt == 1 ? jobId : jobId + "#" + attempt;
        MarketRequest r = new MarketRequest(id, jobId, attempt, c, pool, gpus, nodeCount, priority, ++state.sequence,
                at, jobLimit);
        r.phase = RequestPhase.QUEUED;
        changes.touch(r);
        state.requests.put(id, r);
        state.openByJob.put(jobId, r);
        ClusterBook book = state.clusterBook(c.id);
        if (nodeCount == 0) {
            book.blockWaiting.add(r);
        } else {
            book.queue.add(r);
        }
        return r;
    }

    /**
     * A job that waits in its cluster's own Kueue queue, over the max cluster size: known to the market and
     * listed, but in neither of the cluster's queues, because the cluster's Kueue decides when it files
     * ({@link #release}).
     */
    MarketRequest hold(String jobId, TenantCluster c, PoolId pool, int gpus, int nodeCount, PriorityClass priority,
                       Instant at, Money jobLimit, List<MarketEvent> events) {
        MarketRequest r = enqueue(jobId, state.nextAttempt(jobId), c, pool, gpus, nodeCount, priority, at, jobLimit);
        ClusterBook book = state.clusterBook(c.id);
        book.queue.remove(r);
        book.blockWaiting.remove(r);
        state.setReason(r, Reason.QUOTA_WAIT, quotaMessage(r, c), at, events);
        return r;
    }

    /** Whether the request waits in its cluster's Kueue queue ({@link #hold}), not yet in one of the market's. */
    boolean held(MarketRequest r) {
        ClusterBook book = state.clusterBook(r.cluster.id);
        return r.phase == RequestPhase.QUEUED && !book.queue.contains(r) && !book.blockWaiting.contains(r);
    }

    /** A held request's cluster let it file: it joins the market's queue as a request filed now would. */
    void release(MarketRequest r) {
        ClusterBook book = state.clusterBook(r.cluster.id);
        if (r.nodes == 0) {
            book.blockWaiting.add(r);
        } else {
            book.queue.add(r);
        }
        changes.touch(r);
    }

    /** The cluster's max cluster size changed: its held requests' messages name the new one. */
    void restateHeld(ClusterBook book, Instant at, List<MarketEvent> events) {
        for (MarketRequest r : state.requests.values()) {
            if (r.cluster == book.cluster && held(r)) {
                String message = quotaMessage(r, book.cluster);
                if (!message.equals(r.message)) {
                    state.setReason(r, Reason.QUOTA_WAIT, message, at, events);
                }
            }
        }
    }

    private static String quotaMessage(MarketRequest r, TenantCluster c) {
        return r.gpus > c.maxGpus
                ? r.gpus + " GPUs is more than the max cluster size of " + c.maxGpus + " GPUs"
                : "waiting for quota: the max cluster size of " + c.maxGpus + " GPUs binds";
    }

    /** A queued request leaves without filing (its job ended). */
    void dequeue(MarketRequest r) {
        ClusterBook book = state.clusterBook(r.cluster.id);
        book.queue.remove(r);
        book.blockWaiting.remove(r);
    }

    /** Files the cluster's queued requests with the market while its max cluster size allows. */
    void admit(ClusterBook book, Instant now, List<MarketEvent> events) {
        if (book.queue.isEmpty()) {
            return;
        }
        TenantCluster c = book.cluster;
        List<ClusterQuotaPolicy.Queued> queued = new ArrayList<>(book.queue.size());
        Map<String, MarketRequest> byId = new HashMap<>();
        for (MarketRequest r : book.queue) {
            queued.add(new ClusterQuotaPolicy.Queued(r.id, r.priority, r.sequence, r.gpus));
            byId.put(r.id, r);
        }
        List<String> toFile = ClusterQuotaPolicy.toFile(queued, c.usedGpus, c.maxGpus);
        for (String id : toFile) {
            MarketRequest r = byId.get(id);
            r.phase = RequestPhase.WAITING;
            changes.touch(r);
            c.usedGpus += r.gpus;
            state.book(r.pool).added.add(r);
            state.setReason(r, Reason.PENDING, "filed with the market; the market reads it at its next tick", now, events);
            events.add(new MarketEvent.RequestFiled(now, r.id, r.jobId, c.id, r.pool, r.gpus));
        }
        book.queue.removeIf(r -> r.phase != RequestPhase.QUEUED);
        for (MarketRequest r : book.queue) {
            if (r.reason != Reason.QUOTA_WAIT) {
                state.setReason(r, Reason.QUOTA_WAIT, quotaMessage(r, c), now, events);
            }
        }
    }

    /**
     * Seats waiting sub-node requests on the cluster's live block nodes (in service and ready in the cluster):
     * a block node that has not joined seats nothing, so its requests wait instead of reading Provisioned.
     */
    void packBlock(ClusterBook book, Instant now, List<MarketEvent> events) {
        TenantCluster c = book.cluster;
        Map<PoolId, List<MarketRequest>> byPool = new TreeMap<>();
        for (MarketRequest r : book.blockWaiting) {
            byPool.computeIfAbsent(r.pool, p -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<PoolId, List<MarketRequest>> e : byPool.entrySet()) {
            int perNode = state.book(e.getKey()).pool.gpusPerNode();
            Map<String, Integer> freeGpus = new LinkedHashMap<>();
            for (String nodeId : c.blockNodes) {
                Node node = state.nodes.get(nodeId);
                if (node.liveBlockNode() && node.pool.equals(e.getKey())) {
                    freeGpus.put(node.id, perNode - node.seatedGpus);
                }
            }
            List<BlockPackingPolicy.Waiting> waiting = new ArrayList<>();
            Map<String, MarketRequest> byId = new HashMap<>();
            for (MarketRequest r : e.getValue()) {
                waiting.add(new BlockPackingPolicy.Waiting(r.id, r.priority, r.sequence, r.gpus));
                byId.put(r.id, r);
            }
            for (Map.Entry<String, String> seat : BlockPackingPolicy.seat(waiting, freeGpus).entrySet()) {
                MarketRequest r = byId.get(seat.getKey());
                Node node = state.nodes.get(seat.getValue());
                node.seatedGpus += r.gpus;
                changes.touch(node);
                r.blockNode = node;
                r.phase = RequestPhase.SEATED;
                changes.touch(r);
                state.setReason(r, Reason.PROVISIONED, "seated on base load block node " + node.id, now, events);
                events.add(new MarketEvent.BlockSeated(now, r.id, r.jobId, c.id, node.id, r.gpus));
            }
        }
        book.blockWaiting.removeIf(r -> r.phase != RequestPhase.QUEUED);
        for (MarketRequest r : book.blockWaiting) {
            if (r.reason != Reason.BLOCK_WAIT) {
                state.setReason(r, Reason.BLOCK_WAIT, "waiting for GPUs of the cluster's base load block", now,
                        events);
            }
        }
    }

    /** A block node left service or the market: the requests seated on it wait for the block again. */
    void unseat(Node node) {
        ClusterBook book = state.clusterBook(node.block.id);
        for (MarketRequest r : new ArrayList<>(state.requests.values())) {
            if (r.phase == RequestPhase.SEATED && r.blockNode == node) {
                r.blockNode = null;
                r.phase = RequestPhase.QUEUED;
                r.reason = Reason.PENDING;
                changes.touch(r);
                book.blockWaiting.add(r);
            }
        }
        node.seatedGpus = 0;
        changes.touch(node);
    }
}
