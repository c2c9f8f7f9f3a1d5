package com.bettercompute.application.usage;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ReadableClusters;
import com.bettercompute.application.port.UsageLedger;
import com.bettercompute.domain.input.Input;
import com.bettercompute.domain.usage.UsageRecord;

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

    public ReadUsage(UsageLedger ledger, ReadableClusters readable) {
        this.ledger = ledger;
        this.readable = readable;
    }

    public List<UsageRecord> read(Caller caller, String tenantId, int limit) {
        if (tenantId == null || !TENANT_ID.matcher(tenantId).matches()) {
            throw Input.invalid("tenantId", "is required and must match " + TENANT_ID.pattern());
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Input.invalid("limit", "must be between 1 and " + MAX_LIMIT);
        }
        if (caller.operator()) {
            return ledger.forTenant(tenantId, limit);
        }
        var mayRead = readable.of(caller, tenantId);
        return ledger.forTenant(tenantId, limit).stream().filter(r -> mayRead.test(r.clusterId())).toList();
    }
}
