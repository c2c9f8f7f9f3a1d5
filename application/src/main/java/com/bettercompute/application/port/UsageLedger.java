package com.bettercompute.application.port;

import com.bettercompute.domain.usage.UsageRecord;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Usage records, keyed by (cluster, hour): recording the same hour twice keeps one record. */
public interface UsageLedger {

    /** Records the usage unless a record of that cluster and hour exists. Returns whether it was new. */
    boolean record(UsageRecord usage);

    /** The start of the latest hour recorded for the cluster. */
    Optional<Instant> lastHour(String clusterId);

    /** The tenant's records, oldest hour first (then by cluster), at most {@code limit}. */
    List<UsageRecord> forTenant(String tenantId, int limit);
}
