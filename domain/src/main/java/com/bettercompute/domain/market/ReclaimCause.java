package com.bettercompute.domain.market;

/** Why a running gang lost its nodes. Only {@link #OUTBID} comes with notice. */
public enum ReclaimCause {
    /** Indicates another tenant's higher bid took its place: one minute's notice. */
    OUTBID,
    /** Indicates its limit fell below the pool's reserve (or was withdrawn): at once. */
    LIMIT_BELOW_RESERVE,
    /** Indicates its limit was lowered below the limit it held when its gang started: at once. */
    LIMIT_LOWERED,
    /** Indicates its tenant's balance ran out: at once. */
    BALANCE_RAN_OUT;

    public boolean withNotice() {
        return this == OUTBID;
    }
}
