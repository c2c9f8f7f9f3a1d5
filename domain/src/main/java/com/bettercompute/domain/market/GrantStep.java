package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * Step 6 of a pool's clearing (MARKET.md, "One tick"): grant nodes to the kept and the accepted.
 */
final class GrantStep {
    private final Market market;

    GrantStep(Market market) {
        this.market = market;
    }

    /** Step 6: kept gangs short of nodes first, then the accepted in market order. */
    void grant(ClearingScratch s, Money price, Instant now, List<MarketEvent> events) {
        PoolBook b = s.book;
        for (int h = 0; h < s.holderCount; h++) {
            MarketRequest r = b.requests.get(s.holders[h]);
            if (s.holderKept[h] && !s.accepted[s.holders[h]] && r.phase.holds() && r.grants.size() < r.nodes) {
                market.grantNodes(r, b, price, s.holderLimit[h], now, events);
            }
        }
        for (int k = 0; k < s.bidders; k++) {
            int i = BidOrder.index(s.keys[k]);
            if (!s.accepted[i]) {
                continue;
            }
            MarketRequest r = b.requests.get(i);
            if (r.phase == RequestPhase.WAITING) {
                r.phase = RequestPhase.ADMITTED;
                market.touch(r);
                b.kindAt[i] = PoolBook.HOLDING;
            }
            if (r.grants.size() < r.nodes) {
                market.grantNodes(r, b, price, BidOrder.limit(s.keys[k]), now, events);
            }
        }
    }
}
