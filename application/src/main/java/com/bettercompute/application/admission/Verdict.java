package com.bettercompute.application.admission;

/**
 * The answer to one review: allowed, or refused with the rule's name as {@code reason}, the message the
 * tenant reads at {@code kubectl apply} and the HTTP status code the API server passes on.
 */
public record Verdict(boolean allowed, int code, String reason, String message) {
    /** A rule refused the workload: the tenant must change it. */
    public static final int REFUSED = 403;
    /** The platform could not decide: trying again later may succeed. */
    public static final int UNAVAILABLE = 503;

    public static final String JOB_SIZE_TOO_SMALL = "JobSizeTooSmall";
    public static final String JOB_SIZE_NOT_NODE_ALIGNED = "JobSizeNotNodeAligned";
    public static final String BALANCE_TOO_LOW = "BalanceTooLow";
    public static final String STATION_OWNED = "StationOwned";
    /** The pods name no node class and the site sells several: which pool's node size binds is unknown. */
    public static final String NODE_CLASS_REQUIRED = "NodeClassRequired";
    /** The job's {@code nationalcompute.com/limit-price} label is not a price. */
    public static final String INVALID_LIMIT_PRICE = "InvalidLimitPrice";
    /** The market's state could not be read: GPU workloads are refused (fail closed). */
    public static final String ADMISSION_UNAVAILABLE = "AdmissionUnavailable";

    private static final Verdict ALLOWED = new Verdict(true, 200, null, null);

    public static Verdict allow() {
        return ALLOWED;
    }

    static Verdict refuse(String reason, String message) {
        return new Verdict(false, REFUSED, reason, reason + ": " + message);
    }

    static Verdict unavailable(String message) {
        return new Verdict(false, UNAVAILABLE, ADMISSION_UNAVAILABLE, ADMISSION_UNAVAILABLE + ": " + message);
    }

}
