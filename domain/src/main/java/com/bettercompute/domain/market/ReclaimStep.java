package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Step 5 of a pool's clearing (docs/decisions/market-pricing.md, "The tick"): reclaim, with notice or at once, and rescind.
 */
final class ReclaimStep {
    private ReclaimStep() {
    }

    /**
     * Step 5: a holder accepted again keeps its nodes (and a notice is rescinded); one not accepted
     * loses them, with notice when outbid, at once when its own side caused it.
     */
    static List<Decision> decide(PoolDemand d, Money price, Instant now, MarketTimings timings) {
        List<Decision> decided = new ArrayList<>();
        PoolBook b = d.book;
        for (int h = 0; h < d.holderCount; h++) {
            int i = d.holders[h];
            MarketRequest r = b.requests.get(i);
            if (d.holderKept[h] || d.accepted[i]) {
                if (r.phase == RequestPhase.RECLAIMING && RescindPolicy.rescinds(true, now, r.noticeDeadline)) {
                    decided.add(new Decision.Rescind(r));
                }
                continue;
            }
            if (r.grants.isEmpty()) {
                decided.add(new Decision.BackToWaiting(r, i));
                continue;
            }
            ReclaimCause cause = ReclaimPolicy.cause(d.holderLimit[h], d.reserve, r.startLimit,
                    r.cluster.tenant.balanceMicros());
            if (!cause.withNotice()) {
                decided.add(new Decision.ReclaimAtOnce(r, cause));
            } else if (r.phase == RequestPhase.ADMITTED) {
                decided.add(new Decision.Notice(r, now.plus(timings.notice()), price));
            }
        }
        return decided;
    }
}
