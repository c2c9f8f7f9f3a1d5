package com.bettercompute.domain.market;

/**
 * What a request reads at the end of a tick (the {@code Provisioned} condition's reason). The wire
 * form is the spec's string.
 */
public enum Reason {
    /** Indicates the market has not read the request yet. */
    PENDING("Pending"),
    /** Indicates the limit price is below the pool's reserve (a zero or missing limit always is). */
    BID_TOO_LOW("BidTooLow"),
    /** Indicates the tenant's balance does not cover two hours of the request at its limit. */
    BALANCE_TOO_LOW("BalanceTooLow"),
    /** Indicates a request with a higher limit was admitted or kept its nodes. */
    OUTBID("Outbid"),
    /** Indicates no supply was free to take at any price. */
    PENDING_SUPPLY("PendingSupply"),
    /** Indicates the request waits in its cluster's queue: the max cluster size binds (QuotaReserved=False). */
    QUOTA_WAIT("InsufficientQuota"),
    /** Indicates a sub-node request waits for GPUs of its cluster's base load block. */
    BLOCK_WAIT("WaitingForBaseLoadBlock"),
    /** Indicates the gang is admitted and k of its N nodes are granted. */
    PROVISIONING("Provisioning"),
    /** Indicates every node of the gang is granted (Provisioned=True). */
    PROVISIONED("Provisioned"),
    /** Indicates the gang is reclaimed with notice (PreemptionNotice=True, reason MarketPreemption). */
    MARKET_PREEMPTION("MarketPreemption"),
    /** Indicates the request was revoked (Failed=True) and its job requeued as a new request. */
    MARKET_REVOKED("MarketRevoked");

    private final String wire;

    Reason(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
