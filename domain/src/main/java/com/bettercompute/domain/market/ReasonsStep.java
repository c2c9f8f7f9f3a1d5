package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Step 7 of a pool's clearing (docs/decisions/market-pricing.md, "The tick"): reasons for the bidders not accepted, and
 * for every gang that holds nodes with the rates its next interval bills at.
 */
final class ReasonsStep {
    private static final String OUTBID = "a request with a higher limit price was admitted";
    private static final String NO_SUPPLY = "no supply free to take at any price";

    private ReasonsStep() {
    }

    /** Step 7: reasons for bidders not accepted, for every gang that holds nodes, and their next rates. */
    static List<Decision> decide(PoolDemand d, Money price, MarketTimings timings) {
        List<Decision> decided = new ArrayList<>();
        PoolBook b = d.book;
        long highestAdmitted = d.highestAdmitted();
        for (int i = 0; i < b.requests.size(); i++) {
            if (d.kinds[i] != PoolDemand.WAITING_BIDDER || d.accepted[i]) {
                continue;
            }
            Reason reason = NotAcceptedReasonPolicy.reason(
                    EffectiveLimitPolicy.limit(b.jobLimitAt[i], b.clusterAt[i].limitMicros), highestAdmitted);
            if (b.reasonAt[i] != reason) {
                decided.add(new Decision.GiveReason(b.requests.get(i), i, reason, notAccepted(reason)));
            }
        }
        for (int h = 0; h < d.holderCount; h++) {
            int i = d.holders[h];
            MarketRequest r = b.requests.get(i);
            if (r.phase == RequestPhase.WAITING) {
                Reason reason = d.holderGate[h] != null ? d.holderGate[h]
                        : NotAcceptedReasonPolicy.reason(d.holderLimit[h], highestAdmitted);
                if (r.reason != reason) {
                    decided.add(new Decision.GiveReason(r, i, reason, d.holderGate[h] != null
                            ? d.gateMessage(r, reason, d.holderLimit[h], timings) : notAccepted(reason)));
                }
            } else if (r.phase.holds()) {
                held(d, r, price, d.holderLimit[h], !ProtectionWindowPolicy.isVoid(d.holderLimit[h], r.startLimit),
                        decided);
            }
        }
        for (int k = 0; k < d.bidders; k++) {
            int i = BidOrder.index(d.keys[k]);
            if (d.accepted[i] && !BidOrder.running(d.keys[k])) {
                MarketRequest r = b.requests.get(i);
                if (r.phase.holds()) {
                    held(d, r, price, BidOrder.limit(d.keys[k]), true, decided);
                }
            }
        }
        return decided;
    }

    private static String notAccepted(Reason reason) {
        return reason == Reason.OUTBID ? OUTBID : NO_SUPPLY;
    }

    /** A gang that holds nodes: the rates its next interval bills at, and its reason. */
    private static void held(PoolDemand d, MarketRequest r, Money price, long limit, boolean lockedInForce,
                             List<Decision> decided) {
        long rate = BillingPolicy.marketRate(price, d.reserve, limit);
        if (r.gang.marketRate != rate || r.gang.lockedInForce != lockedInForce) {
            decided.add(new Decision.Rates(r, rate, lockedInForce));
        }
        if (r.phase == RequestPhase.RECLAIMING) {
            if (r.reason != Reason.MARKET_PREEMPTION) {
                decided.add(new Decision.GiveReason(r, -1, Reason.MARKET_PREEMPTION,
                        "reclaimed with notice; deadline " + r.noticeDeadline));
            }
        } else {
            provisioning(r, decided);
        }
    }

    /**
     * A gang's reason while it holds nodes and is not under notice: {@code Provisioning (k of N granted
     * nodes ready)} until every node is ready, then Provisioned=True (which stays when a node is later
     * taken out of service). Decided here at every tick, and when one of its nodes is ready.
     */
    static void provisioning(MarketRequest r, List<Decision> decided) {
        boolean provisioned = r.provisioned;
        if (!provisioned && r.readyNodes() == r.nodes) {
            provisioned = true;
            decided.add(new Decision.Provisioned(r));
        }
        if (provisioned) {
            if (r.reason != Reason.PROVISIONED) {
                decided.add(new Decision.GiveReason(r, -1, Reason.PROVISIONED, "all " + r.nodes + " granted nodes ready"));
            }
            return;
        }
        String message = "Provisioning (" + r.readyNodes() + " of " + r.nodes + " granted nodes ready)";
        if (r.reason != Reason.PROVISIONING || !message.equals(r.message)) {
            decided.add(new Decision.GiveReason(r, -1, Reason.PROVISIONING, message));
        }
    }
}
