package com.bettercompute.domain.market;

import java.util.List;

/**
 * What a persistence adapter writes after a change of the market: everything but the requests as a
 * snapshot ({@code rest}, its request list empty: a few tens of thousands of small values), and of the
 * requests only those filed, changed or gone since the changes were last cleared. The requests are the
 * bulk of a book (a hundred thousand waiting for a few hundred that move in a tick), so a save that
 * encodes and compares only these costs what changed, not the size of the book.
 *
 * @param rest     the snapshot without requests ({@link MarketSnapshot#requests()} is empty)
 * @param requests the open requests filed or changed since the last clearing, in filing order
 * @param gone     the requests that left the market since then (closed or revoked); a request filed
 *                 and gone between two clearings is among them too, never in {@code requests}
 */
public record MarketChanges(MarketSnapshot rest, List<MarketSnapshot.RequestState> requests, List<Gone> gone) {

    /**
     * A request that left the market: {@code revoked} when its job goes on as a later attempt; {@code last}
     * its state as it left (phase {@code REVOKED} or {@code CLOSED}, its last reason and message).
     */
    public record Gone(String id, long sequence, boolean revoked, MarketSnapshot.RequestState last) {
    }
}
