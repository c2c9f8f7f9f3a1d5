package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.List;

/**
 * Step 7 of a pool's clearing (MARKET.md, "One tick"): reasons for the bidders not accepted, and
 * for every gang that holds nodes with the rates its next interval bills at.
 */
final class ReasonsStep {
    private static final String OUTBID = "a request with a higher limit price was admitted";
    private static final String NO_SUPPLY = "no supply free to take at any price";

    private final Market market;

    ReasonsStep(Market market) {
        this.market = market;
    }

    /** Step 7: reasons for bidders not accepted, for every gang that holds nodes, and their next rates. */
    void give(ClearingScratch s, Money price, long highestAdmitted, Instant now, List<MarketEvent> events) {
        PoolBook b = s.book;
        for (int i = 0; i < b.requests.size(); i++) {
            if (s.kinds[i] != ClearingScratch.WAITING_BIDDER || s.accepted[i]) {
                continue;
            }
            Reason reason = NotAcceptedReasonPolicy.reason(
                    EffectiveLimitPolicy.limit(b.jobLimitAt[i], b.clusterAt[i].limitMicros), highestAdmitted);
            if (b.reasonAt[i] != reason) {
                b.reasonAt[i] = reason;
                market.setReason(b.requests.get(i), reason, reason == Reason.OUTBID ? OUTBID : NO_SUPPLY, now, events);
            }
        }
        for (int h = 0; h < s.holderCount; h++) {
            MarketRequest r = b.requests.get(s.holders[h]);
            if (r.phase == RequestPhase.WAITING) {
                Reason reason = s.holderGate[h] != null ? s.holderGate[h]
                        : NotAcceptedReasonPolicy.reason(s.holderLimit[h], highestAdmitted);
                b.reasonAt[s.holders[h]] = reason;
                if (r.reason != reason) {
                    market.setReason(r, reason, s.holderGate[h] != null
                            ? s.gateMessage(r, reason, s.holderLimit[h], market.timings())
                            : reason == Reason.OUTBID ? OUTBID : NO_SUPPLY, now, events);
                }
            } else if (r.phase.holds()) {
                held(s, r, price, s.holderLimit[h], !ProtectionWindowPolicy.isVoid(s.holderLimit[h], r.startLimit), now,
                        events);
            }
        }
        for (int k = 0; k < s.bidders; k++) {
            int i = BidOrder.index(s.keys[k]);
            if (s.accepted[i] && !BidOrder.running(s.keys[k])) {
                MarketRequest r = b.requests.get(i);
                if (r.phase.holds()) {
                    held(s, r, price, BidOrder.limit(s.keys[k]), true, now, events);
                }
            }
        }
    }

    /** A gang that holds nodes: the rates its next interval bills at, and its reason. */
    private void held(ClearingScratch s, MarketRequest r, Money price, long limit, boolean lockedInForce, Instant now,
                      List<MarketEvent> events) {
        long rate = BillingPolicy.marketRate(price, s.reserve, limit);
        if (r.marketRate != rate || r.lockedInForce != lockedInForce) {
            r.marketRate = rate;
            r.lockedInForce = lockedInForce;
            market.touch(r);
        }
        if (r.phase == RequestPhase.RECLAIMING) {
            if (r.reason != Reason.MARKET_PREEMPTION) {
                market.setReason(r, Reason.MARKET_PREEMPTION, "reclaimed with notice; deadline " + r.noticeDeadline,
                        now, events);
            }
        } else {
            market.provisioningReason(r, now, events);
        }
    }
}
