package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * Steps 1 and 2 of a pool's clearing (MARKET.md, "One tick"): read demand and set committed supply
 * aside. Fills the scratch's bidder keys, in no order: the clearing sorts what its walk needs.
 */
final class ReadDemandStep {
    private final Market market;

    ReadDemandStep(Market market) {
        this.market = market;
    }

    /**
     * Steps 1 and 2: every waiting request is gated ({@code BalanceTooLow}, {@code BidTooLow}) or bids;
     * a holder inside its window keeps its nodes (committed supply), else it bids too, unless its own
     * side put it out of the bidding. A tenant whose balance ran out has no window.
     */
    void read(ClearingScratch s, Instant now, List<MarketEvent> events) {
        PoolBook b = s.book;
        long nowNanos = ProtectionWindowPolicy.epochNanos(now);
        for (int i = 0; i < b.requests.size(); i++) {
            TenantCluster cluster = b.clusterAt[i];
            long limit = EffectiveLimitPolicy.limit(b.jobLimitAt[i], cluster.limitMicros);
            int nodeCount = b.nodesAt[i];
            s.demand += nodeCount;
            Tenant tenant = cluster.tenant;
            long balance = tenant.balanceMicros();
            if (b.kindAt[i] == PoolBook.HOLDING) {
                int h = s.holderCount++;
                s.holders[h] = i;
                s.kinds[i] = ClearingScratch.HOLDER;
                s.holderLimit[h] = limit;
                s.holderGate[h] = null;
                s.holderKept[h] = false;
                MarketRequest r = b.requests.get(i);
                if (!BalanceCheckPolicy.ranOut(balance)
                        && ProtectionWindowPolicy.protects(nowNanos, r.protectedUntilNanos, limit, r.startLimit)) {
                    s.committed += nodeCount;
                    s.holderKept[h] = true;
                    s.highestKept = Math.max(s.highestKept, limit);
                    continue;
                }
                if (ReclaimPolicy.outOfBidding(limit, s.reserve, balance)) {
                    s.holderGate[h] = BidTooLowPolicy.tooLow(limit, s.reserve) ? Reason.BID_TOO_LOW
                            : Reason.BALANCE_TOO_LOW;
                    continue;
                }
                s.keys[s.bidders++] = BidOrder.key(limit, true, i);
            } else {
                s.waitingNodes += nodeCount;
                Reason gate = DemandGatePolicy.gate(balance, s.runningCost[tenant.slot],
                        market.timings().balanceHorizon(), limit, b.gpusAt[i], s.reserve);
                if (gate != null) {
                    s.kinds[i] = ClearingScratch.GATED;
                    if (b.reasonAt[i] != gate) {
                        MarketRequest r = b.requests.get(i);
                        b.reasonAt[i] = gate;
                        market.setReason(r, gate, s.gateMessage(r, gate, limit, market.timings()), now, events);
                    }
                    continue;
                }
                s.kinds[i] = ClearingScratch.WAITING_BIDDER;
                s.keys[s.bidders++] = BidOrder.key(limit, false, i);
            }
            Integer slot = s.idleTotal > 0 ? s.idleSlot.get(cluster) : null;
            s.slots[i] = slot == null ? -1 : slot;
        }
    }
}
