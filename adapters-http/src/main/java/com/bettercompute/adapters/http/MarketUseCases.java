package com.bettercompute.adapters.http;

import com.bettercompute.application.market.Bids;
import com.bettercompute.application.market.ChangeReservePrice;
import com.bettercompute.application.market.ChangeSupply;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.market.ListClusterRequests;
import com.bettercompute.application.market.ReadBalance;
import com.bettercompute.application.market.ReadGpuUsage;
import com.bettercompute.application.market.ReadMarketFeed;
import com.bettercompute.application.market.RemoveMarketCluster;
import com.bettercompute.application.market.ReportNodeBack;
import com.bettercompute.application.market.ReportNodeOutOfService;
import com.bettercompute.application.market.TopUpCredits;

/**
 * The market's use cases the HTTP API serves (docs/tenants/market.md), wired by bootstrap: the tenant's
 * routes under {@code /api/k8s/}, the operator's under {@code /api/operator/market/}, and the GPU charges of
 * {@code /api/usage}.
 */
public record MarketUseCases(
        Bids bids,
        ListClusterRequests requests,
        ReadMarketFeed feed,
        ReadBalance balance,
        ChangeReservePrice reserve,
        ChangeSupply supply,
        ReportNodeOutOfService outOfService,
        ReportNodeBack back,
        TopUpCredits credits,
        EnrolCluster enrol,
        RemoveMarketCluster remove,
        ReadGpuUsage gpuUsage) {}
