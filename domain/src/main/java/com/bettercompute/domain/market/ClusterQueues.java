package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Around the tick, per cluster (MARKET.md, "Max cluster size" and "Base load block"): requests file
 * with the market from the cluster's own queue while the max cluster size allows
 * ({@link ClusterQuotaPolicy}), and requests under one node are seated on the cluster's block
 * ({@link BlockPackingPolicy}).
 */
final class ClusterQueues {
    private final Market market;

    ClusterQueues(Market market) {
        this.market = market;
    }

    /** Files the cluster's queued requests with the market while its max cluster size allows. */
    void admit(TenantCluster c, Instant now, List<MarketEvent> events) {
        if (c.queue.isEmpty()) {
            return;
        }
        List<ClusterQuotaPolicy.Queued> queued = new ArrayList<>(c.queue.size());
        Map<String, MarketRequest> byId = new HashMap<>();
        for (MarketRequest r : c.queue) {
            queued.add(new ClusterQuotaPolicy.Queued(r.id, r.priority, r.sequence, r.gpus));
            byId.put(r.id, r);
        }
        List<String> toFile = ClusterQuotaPolicy.toFile(queued, c.usedGpus, c.maxGpus);
        for (String id : toFile) {
            MarketRequest r = byId.get(id);
            r.phase = RequestPhase.WAITING;
            market.touch(r);
            c.usedGpus += r.gpus;
            market.book(r.pool).added.add(r);
            market.setReason(r, Reason.PENDING, "filed with the market; not read yet", now, events);
            events.add(new MarketEvent.RequestFiled(now, r.id, r.jobId, c.id, r.pool, r.gpus));
        }
        c.queue.removeIf(r -> r.phase != RequestPhase.QUEUED);
        for (MarketRequest r : c.queue) {
            if (r.reason != Reason.QUOTA_WAIT) {
                market.setReason(r, Reason.QUOTA_WAIT, r.gpus > c.maxGpus
                        ? r.gpus + " GPUs is more than the max cluster size of " + c.maxGpus + " GPUs"
                        : "waiting for quota: the max cluster size of " + c.maxGpus + " GPUs binds", now, events);
            }
        }
    }

    /** Seats waiting sub-node requests on the cluster's live block nodes. */
    void packBlock(TenantCluster c, Instant now, List<MarketEvent> events) {
        Map<PoolId, List<MarketRequest>> byPool = new TreeMap<>();
        for (MarketRequest r : c.blockWaiting) {
            byPool.computeIfAbsent(r.pool, p -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<PoolId, List<MarketRequest>> e : byPool.entrySet()) {
            int perNode = market.book(e.getKey()).pool.gpusPerNode();
            Map<String, Integer> freeGpus = new LinkedHashMap<>();
            for (Node node : c.blockNodes.values()) {
                if (node.inService && node.pool.equals(e.getKey())) {
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
                Node node = market.nodes.get(seat.getValue());
                node.seatedGpus += r.gpus;
                market.touch(node);
                r.blockNode = node;
                r.phase = RequestPhase.SEATED;
                market.touch(r);
                market.setReason(r, Reason.PROVISIONED, "seated on base load block node " + node.id, now, events);
                events.add(new MarketEvent.BlockSeated(now, r.id, r.jobId, c.id, node.id, r.gpus));
            }
        }
        c.blockWaiting.removeIf(r -> r.phase != RequestPhase.QUEUED);
        for (MarketRequest r : c.blockWaiting) {
            if (r.reason != Reason.BLOCK_WAIT) {
                market.setReason(r, Reason.BLOCK_WAIT, "waiting for GPUs of the cluster's base load block", now,
                        events);
            }
        }
    }
}
