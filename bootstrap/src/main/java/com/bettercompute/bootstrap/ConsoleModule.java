package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.adapters.http.console.Console;
import com.bettercompute.adapters.http.console.ConsoleUseCases;
import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.ReadMarketCluster;

import java.time.Clock;

/**
 * The web console: the API's use cases, and what it reads beside them over the same stores and the same cache; its
 * sessions in the database, so every replica knows every session.
 */
final class ConsoleModule {
    private ConsoleModule() {}

    static Console start(DatabaseModule data, ClustersModule clusters, MarketModule market, MarketUseCases marketUseCases,
                         VolumeUseCases volumes, ListLoadBalancers loadBalancers, Clock clock) {
        MarketCallers callers = data.callers();
        return new Console(clusters.useCases(), clusters.nodePools(), marketUseCases,
                new ConsoleUseCases(callers, new ReadMarketCluster(callers, market.markets()),
                        new ConsoleSessions(data.db().consoleSessions(), clock), loadBalancers), volumes, clock);
    }
}
