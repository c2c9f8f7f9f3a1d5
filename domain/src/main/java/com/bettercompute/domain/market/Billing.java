package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Step 8 of a tick, and what the balance gate reads: accrues every ready grant up to the tick into
 * its tenant's charges, exactly ({@link BillingPolicy}), and closes ledger entries. An entry covers
 * one rate and closes when the rate changes, the grant ends, or it reaches the billing period, so the
 * balance is exact at every tick while the ledger gets one entry per grant and period. A tenant is
 * never charged past its credits: the accrual that reaches zero is cut there, and the tick reclaims
 * the tenant's nodes at once.
 */
final class Billing {
    private final MarketTimings timings;
    private final List<Charge> charges;

    Billing(MarketTimings timings, int expectedCharges) {
        this.timings = timings;
        this.charges = new ArrayList<>(expectedCharges);
    }

    List<Charge> charges() {
        return charges;
    }

    /** Bills every grant up to {@code now} (or its end), dropping the ended ones once billed. */
    void bill(Map<String, NodeGrant> grants, Instant now) {
        Iterator<NodeGrant> it = grants.values().iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            boolean ended = g.endsAt != null && !g.endsAt.isAfter(now);
            if (g.billedUntil != null) {
                Instant to = ended ? g.endsAt : now;
                if (to.isAfter(g.billedUntil)) {
                    billUpTo(g, to);
                }
            }
            if (ended) {
                close(g);
                it.remove();
            }
        }
    }

    private void billUpTo(NodeGrant g, Instant to) {
        if (g.currentLockedInForce() && g.billedUntil.isBefore(g.protectedUntil)) {
            accrue(g, to.isBefore(g.protectedUntil) ? to : g.protectedUntil, g.lockedRate.micros(), true);
        }
        if (to.isAfter(g.billedUntil)) {
            accrue(g, to, g.currentMarketRate(), false);
        }
    }

    /** Accrues [billedUntil, to) at one rate into the grant's open entry. */
    private void accrue(NodeGrant g, Instant to, long rate, boolean locked) {
        if (g.entryFrom != null && (g.entryRate != rate || g.entryLocked != locked)) {
            close(g);
        }
        if (g.entryFrom == null) {
            g.entryFrom = g.billedUntil;
            g.entryRate = rate;
            g.entryLocked = locked;
            g.entryAccrued = 0;
        }
        BillingPolicy.Accrual accrual = BillingPolicy.accrue(rate, g.gpus, g.billedUntil, to, g.carry);
        Tenant tenant = g.cluster.tenant;
        long charge = Math.min(accrual.micros(), Math.max(0, tenant.balanceMicros()));
        tenant.charged += charge;
        g.entryAccrued += charge;
        g.carry = accrual.carry();
        g.billedUntil = to;
        if (!to.isBefore(g.entryFrom.plus(timings.billingPeriod()))) {
            close(g);
        }
    }

    /** Closes a grant's open ledger entry, if any, into a charge. */
    void close(NodeGrant g) {
        if (g.entryFrom == null) {
            return;
        }
        if (g.billedUntil.isAfter(g.entryFrom)) {
            charges.add(new Charge(g.id, g.entryFrom, g.billedUntil, g.cluster.tenant.id, g.cluster.id, g.node.pool,
                    g.node.id, Money.ofMicros(g.entryRate), g.gpus, Money.ofMicros(g.entryAccrued), g.entryLocked));
        }
        g.entryFrom = null;
        g.entryAccrued = 0;
    }

    /**
     * What every tenant's billing nodes cost over the balance horizon, by tenant slot: every live
     * grant, a gang's and an idle one in its grace alike, at the rate it bills at now (a node not
     * ready yet at its locked rate, which it will bill at).
     */
    long[] runningCost(Collection<NodeGrant> grants, int tenantCount, Instant now) {
        long[] cost = new long[tenantCount];
        for (NodeGrant g : grants) {
            if (g.endsAt != null) {
                continue;
            }
            boolean locked = g.currentLockedInForce() && (g.protectedUntil == null || now.isBefore(g.protectedUntil));
            long rate = locked ? g.lockedRate.micros() : g.currentMarketRate();
            cost[g.cluster.tenant.slot] += BalanceCheckPolicy.costOver(timings.balanceHorizon(), rate, g.gpus);
        }
        return cost;
    }
}
