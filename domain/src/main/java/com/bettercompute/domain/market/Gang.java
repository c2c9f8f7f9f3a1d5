package com.bettercompute.domain.market;

/**
 * A request's gang as its node grants see it: the request's id, and the terms every node of the gang bills
 * at after its window, which the tick decides once per gang rather than once per node (the rate after the
 * window, and whether the locked rate is in force for the interval after the last tick). A grant that leaves
 * its gang keeps the terms in force as it leaves.
 */
final class Gang {
    final String requestId;
    long marketRate;
    boolean lockedInForce = true;

    Gang(String requestId) {
        this.requestId = requestId;
    }
}
