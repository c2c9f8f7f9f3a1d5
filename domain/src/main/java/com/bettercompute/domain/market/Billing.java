package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Step 8 of a tick, and what the balance gate reads: accrues every ready grant up to the tick into
 * its tenant's charges, exactly ({@link BillingPolicy}), and closes ledger entries. An entry covers
 * one rate and closes when the rate changes, the grant ends, or its billing period ends (periods are
 * aligned to the epoch: hours end on the hour), so the balance is exact at every tick while the ledger
 * gets one entry per grant, rate and period. A tenant is
 * never charged past its credits: the accrual that reaches zero is cut there, and the tick reclaims
 * the tenant's nodes at once.
 *
 * <p>The same walk over the grants sums what each tenant's live grants cost over the balance horizon
 * ({@link #runningCost}). The walk runs on epoch nanoseconds and longs: it visits every grant of the
 * market each tick, and allocates only the ledger entries it closes.
 */
final class Billing {
    private final ChangeLog changes;
    private final MarketTimings timings;
    private final long periodNanos;
    private final List<Charge> charges;
    private final long[] runningCost;
    private long nowNanos;

    Billing(ChangeLog changes, MarketTimings timings, int expectedCharges, int tenantCount) {
        this.changes = changes;
        this.timings = timings;
        this.periodNanos = timings.billingPeriod().toNanos();
        this.charges = new ArrayList<>(expectedCharges);
        this.runningCost = new long[tenantCount];
    }

    List<Charge> charges() {
        return charges;
    }

    /**
     * What every tenant's billing nodes cost over the balance horizon, by tenant slot, as of the
     * last {@link #bill}: every live grant, a gang's and an idle one in its grace alike, at the rate
     * it bills at now (a node not ready yet at its locked rate, which it will bill at).
     */
    long[] runningCost() {
        return runningCost;
    }

    /**
     * Bills every grant up to {@code now} (or its end), dropping the ended ones once billed, and
     * adds every live grant to {@link #runningCost}.
     */
    void bill(Map<String, NodeGrant> grants, Instant now) {
        nowNanos = EpochNanos.of(now);
        Iterator<NodeGrant> it = grants.values().iterator();
        while (it.hasNext()) {
            NodeGrant g = it.next();
            if (g.endsAt == null) {
                billUpTo(g, nowNanos);
                runningCost[g.cluster.tenant.slot] += costOverHorizon(g);
                continue;
            }
            long endsAt = EpochNanos.of(g.endsAt);
            billUpTo(g, Math.min(endsAt, nowNanos));
            if (endsAt <= nowNanos) {
                close(g);
                it.remove();
                changes.touch(g);
            }
        }
    }

    /** A grant the tick ends after {@link #bill} (an idle node of a tenant that ran out) stops counting. */
    void endingAfterBilling(NodeGrant g) {
        if (g.endsAt == null) {
            runningCost[g.cluster.tenant.slot] -= costOverHorizon(g);
        }
    }

    private long costOverHorizon(NodeGrant g) {
        boolean locked = g.currentLockedInForce() && nowNanos < g.protectedUntilNanos;
        long rate = locked ? g.lockedRate.micros() : g.currentMarketRate();
        return BalanceCheckPolicy.costOver(timings.balanceHorizon(), rate, g.gpus);
    }

    private void billUpTo(NodeGrant g, long to) {
        if (g.billedUntil == EpochNanos.NONE || to <= g.billedUntil) {
            return;
        }
        if (g.currentLockedInForce() && g.billedUntil < g.protectedUntilNanos) {
            accrue(g, Math.min(to, g.protectedUntilNanos), g.lockedRate.micros(), true);
        }
        if (to > g.billedUntil) {
            accrue(g, to, g.currentMarketRate(), false);
        }
    }

    /**
     * Accrues [billedUntil, to) at one rate into the grant's open entry, closing it at each end of a billing
     * period ({@link #periodEnd}) and opening the next at the same rate. The grant is recorded as billed
     * ({@link ChangeLog#billed}) only when its entry opens (not on from one period into the next), closes for good,
     * or the balance cuts an accrual short: otherwise its cursor follows from the saved one and the last tick,
     * and a restored market works it out again ({@link #billSaved}), so a save writes a grant's billing when
     * its rate changes or it starts or ends, not once a tick, nor once an hour.
     */
    private void accrue(NodeGrant g, long to, long rate, boolean locked) {
        if (g.entryFrom != EpochNanos.NONE && (g.entryRate != rate || g.entryLocked != locked)) {
            close(g);
        }
        boolean rolledOver = false;
        while (g.billedUntil < to) {
            boolean opened = g.entryFrom == EpochNanos.NONE;
            if (opened) {
                g.entryFrom = g.billedUntil;
                g.entryRate = rate;
                g.entryLocked = locked;
                g.entryAccrued = 0;
            }
            long periodEnd = periodEnd(g.entryFrom, periodNanos);
            long upTo = Math.min(to, periodEnd);
            long nanos = upTo - g.billedUntil;
            long micros = BillingPolicy.micros(rate, g.gpus, nanos, g.carry);
            Tenant tenant = g.cluster.tenant;
            long charge = Math.min(micros, Math.max(0, tenant.balanceMicros()));
            tenant.charged += charge;
            g.entryAccrued += charge;
            g.carry = BillingPolicy.carry(rate, g.gpus, nanos, g.carry);
            g.billedUntil = upTo;
            if ((opened && !rolledOver) || charge != micros) {
                changes.billed(g);
            }
            rolledOver = false;
            if (upTo == periodEnd) {
                settle(g);
                if (upTo < to) {
                    rolledOver = true;
                } else {
                    changes.billed(g);
                }
            }
        }
    }

    /**
     * Where the billing period holding {@code from} ends: periods are aligned to the epoch (a period of an hour
     * ends on the hour, UTC), so every entry falls in one hour of the usage route's per-hour sums.
     */
    static long periodEnd(long from, long periodNanos) {
        return Math.floorDiv(from, periodNanos) * periodNanos + periodNanos;
    }

    /**
     * A saved grant's open entry billed on to {@code to} as the ticks since its save did: at its one rate, on
     * from period to period (each closed entry is in the ledger and its tenant's settled total already), so
     * the grant ends as the running market left it. Unlike a tick it charges no tenant: the restored tenant's
     * total is worked out from the grants afterwards.
     */
    static void billSaved(NodeGrant g, long to, long periodNanos) {
        while (g.entryFrom != EpochNanos.NONE && g.billedUntil < to) {
            long periodEnd = periodEnd(g.entryFrom, periodNanos);
            long upTo = Math.min(to, periodEnd);
            long nanos = upTo - g.billedUntil;
            g.entryAccrued += BillingPolicy.micros(g.entryRate, g.gpus, nanos, g.carry);
            g.carry = BillingPolicy.carry(g.entryRate, g.gpus, nanos, g.carry);
            g.billedUntil = upTo;
            if (upTo == periodEnd) {
                g.entryAccrued = 0;
                g.entryFrom = upTo < to ? upTo : EpochNanos.NONE;
            }
        }
    }

    /** Closes a grant's open ledger entry, if any, into a charge, and records the grant as billed. */
    void close(NodeGrant g) {
        if (g.entryFrom == EpochNanos.NONE) {
            return;
        }
        settle(g);
        changes.billed(g);
    }

    /** The open entry into a charge, added to its tenant's settled total. */
    private void settle(NodeGrant g) {
        if (g.billedUntil > g.entryFrom) {
            charges.add(new Charge(g.id, EpochNanos.instant(g.entryFrom), EpochNanos.instant(g.billedUntil),
                    g.cluster.tenant.id, g.cluster.id, g.pool, g.nodeId, Money.ofMicros(g.entryRate), g.gpus,
                    Money.ofMicros(g.entryAccrued), g.entryLocked));
        }
        g.cluster.tenant.settled += g.entryAccrued;
        g.entryFrom = EpochNanos.NONE;
        g.entryAccrued = 0;
    }
}
