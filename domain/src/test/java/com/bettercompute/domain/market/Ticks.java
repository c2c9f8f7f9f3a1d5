package com.bettercompute.domain.market;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Test and benchmark help: a tick after which every node it granted reports ready at once, as a cluster would. */
final class Ticks {
    private Ticks() {
    }

    /** The tick's outcome with the events of the nodes' readiness appended. */
    static TickOutcome tickReady(Market market, Instant now) {
        TickOutcome o = market.tick(now);
        List<MarketEvent> events = new ArrayList<>(o.events());
        for (MarketEvent e : o.events()) {
            if (e instanceof MarketEvent.NodeGranted g) {
                events.addAll(market.nodeReady(g.nodeId(), now));
            }
        }
        return new TickOutcome(o.at(), o.feed(), List.copyOf(events), o.charges(), o.failures());
    }
}
