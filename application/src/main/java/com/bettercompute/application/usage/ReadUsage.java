package com.bettercompute.application.usage;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.domain.volume.StorageCharge;
import com.bettercompute.domain.volume.StoragePrice;
import com.bettercompute.domain.input.Input;
import com.bettercompute.domain.usage.UsageRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code GET /api/usage?tenantId=}: a tenant's usage records, oldest hour first. An operator reads any
 * tenant's; anyone else needs {@code compute:kubernetes:read} on the tenant and sees the usage of the
 * clusters it may read, each decided as {@code get} decides the cluster.
 */
public final class ReadUsage {
    public static final int MAX_LIMIT = 10_000;
    private static final Pattern TENANT_ID = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");

    private final UsageLedger ledger;
    private final ReadableClusters readable;
    /** Shared volumes' billed hours; null: none. */
    private final StorageLedger storage;

    public ReadUsage(UsageLedger ledger, ReadableClusters readable) {
        this(ledger, readable, null);
    }

    /** With {@code storage}: the shared volumes' billed hours too, as {@code kubernetes.volume.gib-hours} of their cluster. */
    public ReadUsage(UsageLedger ledger, ReadableClusters readable, StorageLedger storage) {
        this.ledger = ledger;
        this.readable = readable;
        this.storage = storage;
    }

    public List<UsageRecord> read(Caller caller, String tenantId, int limit) {
        if (tenantId == null || !TENANT_ID.matcher(tenantId).matches()) {
            throw Input.invalid("tenantId", "is required and must match " + TENANT_ID.pattern());
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Input.invalid("limit", "must be between 1 and " + MAX_LIMIT);
        }
        if (caller.operator()) {
            return records(tenantId, limit);
        }
        var mayRead = readable.of(caller, tenantId);
        return records(tenantId, limit).stream().filter(r -> mayRead.test(r.clusterId())).toList();
    }

    /** The cluster-hours and the storage hours, oldest hour first (then by cluster), at most {@code limit}. */
    private List<UsageRecord> records(String tenantId, int limit) {
        List<UsageRecord> hours = ledger.forTenant(tenantId, limit);
        if (storage == null) {
            return hours;
        }
        List<UsageRecord> all = new ArrayList<>(hours);
        for (StorageCharge c : storage.forTenant(tenantId, limit)) {
            all.add(new UsageRecord(StorageCharge.USAGE_KIND, c.tenantId(), c.clusterId(), c.hourStart(),
                    StoragePrice.gibHours(c.byteSeconds()), c.recordedAt()));
        }
        all.sort(Comparator.comparing(UsageRecord::hourStart).thenComparing(UsageRecord::clusterId).thenComparing(UsageRecord::kind));
        return List.copyOf(all.subList(0, Math.min(limit, all.size())));
    }
}
