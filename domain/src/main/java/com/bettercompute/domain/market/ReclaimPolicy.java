package com.bettercompute.domain.market;

/**
 * Why a running gang that was not accepted loses its nodes, which decides notice or at once: its own
 * side (limit below the reserve or withdrawn, limit lowered below its start, balance run out) is at
 * once and final; otherwise another tenant's higher bid took its place, with one minute's notice.
 */
public final class ReclaimPolicy {
    private ReclaimPolicy() {
    }

    public static ReclaimCause cause(long limit, long reserve, long startLimit, long balance) {
        if (BidTooLowPolicy.tooLow(limit, reserve)) {
            return ReclaimCause.LIMIT_BELOW_RESERVE;
        }
        if (ProtectionWindowPolicy.isVoid(limit, startLimit)) {
            return ReclaimCause.LIMIT_LOWERED;
        }
        if (BalanceCheckPolicy.ranOut(balance)) {
            return ReclaimCause.BALANCE_RAN_OUT;
        }
        return ReclaimCause.OUTBID;
    }

    /** Whether a running gang outside its window stays out of the bidding because of its own side. */
    public static boolean outOfBidding(long limit, long reserve, long balance) {
        return BidTooLowPolicy.tooLow(limit, reserve) || BalanceCheckPolicy.ranOut(balance);
    }
}
