package com.bettercompute.adapters.http.console;

import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.ReadMarketCluster;

/**
 * What the console reads beside the API's use cases, wired by bootstrap: the caller's organization (as the
 * market routes find it), a market-managed cluster as a person reads it, the sessions people sign in to, and a
 * cluster's Services of type LoadBalancer with their endpoints (null: the Workloads page shows no Services).
 */
public record ConsoleUseCases(MarketCallers callers, ReadMarketCluster marketCluster, ConsoleSessions sessions,
                              ListLoadBalancers loadBalancers) {
    public ConsoleUseCases(MarketCallers callers, ReadMarketCluster marketCluster, ConsoleSessions sessions) {
        this(callers, marketCluster, sessions, null);
    }
}
