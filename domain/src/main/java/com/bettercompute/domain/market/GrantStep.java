package com.bettercompute.domain.market;

import java.util.ArrayList;
import java.util.List;

/**
 * Step 6 of a pool's clearing (docs/decisions/market-pricing.md, "The tick"): grant nodes to the kept and the accepted.
 */
final class GrantStep {
    private GrantStep() {
    }

    /** Step 6: kept gangs short of nodes first, then the accepted in market order. */
    static List<Decision> decide(PoolDemand d, Money price) {
        List<Decision> decided = new ArrayList<>();
        PoolBook b = d.book;
        for (int h = 0; h < d.holderCount; h++) {
            MarketRequest r = b.requests.get(d.holders[h]);
            if (d.holderKept[h] && r.phase.holds() && r.grants.size() < r.nodes) {
                decided.add(new Decision.Fill(r, price, d.holderLimit[h]));
            }
        }
        for (int k = 0; k < d.bidders; k++) {
            int i = BidOrder.index(d.keys[k]);
            if (!d.accepted[i]) {
                continue;
            }
            MarketRequest r = b.requests.get(i);
            if (r.phase == RequestPhase.WAITING) {
                decided.add(new Decision.Admit(r, i));
            }
            if (r.grants.size() < r.nodes) {
                decided.add(new Decision.Fill(r, price, BidOrder.limit(d.keys[k])));
            }
        }
        return decided;
    }
}
