package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * Step 5 of a pool's clearing (MARKET.md, "One tick"): reclaim, with notice or at once, and rescind.
 */
final class ReclaimStep {
    private final Market market;

    ReclaimStep(Market market) {
        this.market = market;
    }

    /**
     * Step 5: a holder accepted again keeps its nodes (and a notice is rescinded); one not accepted
     * loses them, with notice when outbid, at once when its own side caused it.
     */
    void reclaim(ClearingScratch s, Money price, Instant now, List<MarketEvent> events) {
        PoolBook b = s.book;
        for (int h = 0; h < s.holderCount; h++) {
            int i = s.holders[h];
            MarketRequest r = b.requests.get(i);
            if (s.holderKept[h] || s.accepted[i]) {
                s.holderKept[h] = true;
                if (r.phase == RequestPhase.RECLAIMING && RescindPolicy.rescinds(true, now, r.noticeDeadline)) {
                    r.phase = RequestPhase.ADMITTED;
                    r.noticeDeadline = null;
                    market.touch(r);
                    events.add(new MarketEvent.ReclaimRescinded(now, r.id, r.jobId, r.cluster.id, r.grantedNodeIds()));
                }
                continue;
            }
            if (r.grants.isEmpty()) {
                r.phase = RequestPhase.WAITING;
                b.kindAt[i] = PoolBook.WAITING;
                r.noticeDeadline = null;
                r.lockedRate = null;
                r.window(null);
                market.touch(r);
                continue;
            }
            ReclaimCause cause = ReclaimPolicy.cause(s.holderLimit[h], s.reserve, r.startLimit,
                    r.cluster.tenant.balanceMicros());
            if (!cause.withNotice()) {
                events.add(new MarketEvent.GangReclaimedAtOnce(now, r.id, r.jobId, r.cluster.id, b.pool.id(), cause,
                        r.grantedNodeIds()));
                market.revoke(r, now, events, true, "reclaimed at once: " + cause + "; the job requeues");
            } else if (r.phase == RequestPhase.ADMITTED) {
                r.phase = RequestPhase.RECLAIMING;
                r.noticeDeadline = now.plus(market.timings().notice());
                market.touch(r);
                b.reclaiming.add(r);
                events.add(new MarketEvent.PreemptionNoticed(now, r.id, r.jobId, r.cluster.id, b.pool.id(),
                        r.noticeDeadline, r.grantedNodeIds(), price));
            }
        }
    }
}
