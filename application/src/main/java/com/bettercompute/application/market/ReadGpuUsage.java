package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketLedger;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ReadableClusters;
import java.util.List;

/**
 * The GPU charges of {@code GET /api/usage}, beside the cluster-hours: a tenant's market charges per
 * cluster, pool and hour, from the market ledger. Decided as the cluster-hours are: an operator reads
 * any tenant's; anyone else needs read on the tenant and sees the clusters it may read.
 */
public final class ReadGpuUsage {
    private final MarketLedger ledger;
    private final ReadableClusters readable;

    public ReadGpuUsage(MarketLedger ledger, ReadableClusters readable) {
        this.ledger = ledger;
        this.readable = readable;
    }

    /** The tenant id and limit are checked by the cluster-hours read that comes with this one. */
    public List<MarketLedger.HourlyCharge> read(Caller caller, String tenantId, int limit) {
        java.util.function.Predicate<String> mayRead = caller.operator() ? id -> true : readable.of(caller, tenantId);
        return ledger.hourly(tenantId).stream().filter(h -> mayRead.test(h.clusterId())).limit(limit).toList();
    }
}
