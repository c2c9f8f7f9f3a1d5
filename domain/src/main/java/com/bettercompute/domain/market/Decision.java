package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * What a step of a pool's clearing decided for one request, as a value. The steps read the book and return
 * decisions; the grant lifecycle applies them, in the order given, after each step, so the next step reads
 * the book as the decisions left it. {@code at} is the request's position in its pool's book, whose
 * columns mirror what the decision changes (-1 when the decision changes none of them).
 */
sealed interface Decision {
    MarketRequest request();

    /** Its reason changes, with an event. */
    record GiveReason(MarketRequest request, int at, Reason reason, String message) implements Decision {
    }

    /** A gang accepted again while under notice keeps its nodes: the notice is withdrawn. */
    record Rescind(MarketRequest request) implements Decision {
    }

    /** An admitted gang not accepted again that holds no node yet bids again as a waiting request. */
    record BackToWaiting(MarketRequest request, int at) implements Decision {
    }

    /** Its own side put the gang out of the bidding: reclaimed at once, its job requeued. */
    record ReclaimAtOnce(MarketRequest request, ReclaimCause cause) implements Decision {
    }

    /** Outbid: the gang keeps its nodes until the deadline of its notice. */
    record Notice(MarketRequest request, Instant deadline, Money price) implements Decision {
    }

    /** An accepted waiting request is admitted. */
    record Admit(MarketRequest request, int at) implements Decision {
    }

    /** A gang short of nodes takes free or its cluster's idle nodes, as many as there are, up to its size. */
    record Fill(MarketRequest request, Money price, long limit) implements Decision {
    }

    /** The terms its nodes bill at after the window, for the interval after this tick. */
    record Rates(MarketRequest request, long marketRate, boolean lockedInForce) implements Decision {
    }

    /** Every granted node of the gang is ready: Provisioned=True. */
    record Provisioned(MarketRequest request) implements Decision {
    }
}
