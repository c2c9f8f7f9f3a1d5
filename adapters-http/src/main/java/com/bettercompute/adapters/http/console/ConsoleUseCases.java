package com.bettercompute.adapters.http.console;

import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.market.ReadMarketCluster;

/**
 * What the console reads beside the API's use cases, wired by bootstrap: the caller's organization (as the
 * market routes find it) and a market-managed cluster as a person reads it.
 */
public record ConsoleUseCases(MarketCallers callers, ReadMarketCluster marketCluster) {}
