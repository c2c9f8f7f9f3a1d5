package com.bettercompute.application.port;

import com.bettercompute.domain.market.MarketEvent;
import java.util.List;

/**
 * The market's decisions made real inside tenant clusters: ProvisioningRequest conditions and Events
 * for reasons, nodes joined for grants, {@code PreemptionNotice} conditions, cordons, taints,
 * {@code preempt-at} annotations and evictions for notices, uncordons for rescinds, Workload
 * evictions for revocations. Called after the tick's state is saved, in event order.
 */
public interface MarketEffects {
    /**
     * Applies the events in order. Every effect is idempotent (a cordon of a cordoned node, an
     * eviction of a gone pod are successes), because a crash between save and apply replays them.
     */
    void apply(List<MarketEvent> events);
}
