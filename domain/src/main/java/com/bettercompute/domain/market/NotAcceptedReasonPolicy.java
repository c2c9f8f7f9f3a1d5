package com.bettercompute.domain.market;

/**
 * A bidder that was not accepted reads {@code Outbid} when a request with a higher limit was accepted
 * or kept its nodes, else {@code PendingSupply} (no supply was free to take at any price).
 */
public final class NotAcceptedReasonPolicy {
    private NotAcceptedReasonPolicy() {
    }

    /** @param highestAdmittedLimit the highest limit accepted or kept in the tick, -1 if none */
    public static Reason reason(long limit, long highestAdmittedLimit) {
        return highestAdmittedLimit > limit ? Reason.OUTBID : Reason.PENDING_SUPPLY;
    }
}
