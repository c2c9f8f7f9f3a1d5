package com.bettercompute.domain.market;

/** Where a request stands in its life. */
public enum RequestPhase {
    /** Indicates the request waits in its cluster's own queue and has not filed with the market. */
    QUEUED,
    /** Indicates the request is filed and bids (or is gated) at every tick. */
    WAITING,
    /** Indicates the market admitted the gang; it holds k of its N nodes. */
    ADMITTED,
    /** Indicates the gang is reclaimed with notice and keeps its nodes until the deadline. */
    RECLAIMING,
    /** Indicates a sub-node request seated on a base load block node. */
    SEATED,
    /** Indicates the job ended or was withdrawn; the request is closed. */
    CLOSED,
    /** Indicates the market revoked the request; its job continues as a new request. */
    REVOKED;

    /** Whether the request holds (or is owed) market nodes. */
    public boolean holds() {
        return this == ADMITTED || this == RECLAIMING;
    }

    /** Whether the request counts against its cluster's max cluster size. */
    public boolean filed() {
        return this == WAITING || this == ADMITTED || this == RECLAIMING;
    }
}
