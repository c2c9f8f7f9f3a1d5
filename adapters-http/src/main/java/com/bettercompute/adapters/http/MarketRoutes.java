package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.MarketRequests.BidBody;
import com.bettercompute.adapters.http.MarketViews.MarketBalance;
import com.bettercompute.adapters.http.MarketViews.MarketBid;
import com.bettercompute.adapters.http.MarketViews.MarketFeedItem;
import com.bettercompute.adapters.http.MarketViews.MarketFeedPage;
import com.bettercompute.adapters.http.MarketViews.MarketRequest;
import com.bettercompute.adapters.http.MarketViews.MarketRequestList;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.application.market.ReadMarketFeed;
import com.bettercompute.domain.input.Input;
import io.javalin.http.Context;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The tenant's market routes under {@code /api/k8s/} (API.md, "The market API"): the cluster's limit
 * price, its requests, the balance and the public feed (JSON with a cursor, or server-sent events).
 * A cluster is named by its {@code name} in the caller's organization.
 */
final class MarketRoutes {
    static final String BID = "/api/k8s/bid";
    static final String REQUESTS = "/api/k8s/requests";
    static final String FEED = "/api/k8s/market/feed";
    static final String BALANCE = "/api/k8s/balance";

    private MarketRoutes() {}

    static void install(Router router, MarketUseCases m, FeedStreams streams) {
        router.put(BID, "Set the cluster's limit price (USD per GPU-hour)", BidBody.class, MarketBid.class,
                (caller, bid) -> MarketBid.of(m.bids().set(caller, bid.org(), bid.cluster(), bid.limit())));
        router.get(BID, "Read the cluster's limit price", List.of("cluster", "org"), MarketBid.class,
                (caller, ctx) -> MarketBid.of(m.bids().read(caller, org(ctx), cluster(ctx))));
        router.delete(BID, "Withdraw the cluster's limit price (its jobs bid zero)", List.of("cluster", "org"), MarketBid.class,
                (caller, ctx) -> MarketBid.of(m.bids().withdraw(caller, org(ctx), cluster(ctx))));
        router.get(REQUESTS, "The cluster's market requests with phase, reason, grants and episodes",
                List.of("cluster", "org"), MarketRequestList.class,
                (caller, ctx) -> new MarketRequestList(m.requests().list(caller, org(ctx), cluster(ctx)).stream()
                        .map(MarketRequest::of).toList()));
        router.getOrStream(FEED, "The market feed after a cursor; server-sent events with Accept: text/event-stream",
                List.of("pool", "after", "limit"), MarketFeedPage.class, (caller, ctx) -> {
                    ReadMarketFeed.Page page = m.feed().read(pool(ctx), QueryString.number(ctx.queryParam("after"), "after", 0),
                            QueryString.clamped(ctx.queryParam("limit"), "limit", ReadMarketFeed.DEFAULT_LIMIT));
                    return new MarketFeedPage(page.items().stream().map(MarketFeedItem::of).toList(), page.next());
                }, streams::serve);
        router.get(BALANCE, "The organization's credits, charges, balance and latest ledger entries", List.of("org"),
                MarketBalance.class, (caller, ctx) -> MarketBalance.of(m.balance().read(caller, org(ctx))));
    }

    /** The required {@code cluster} parameter: a cluster's name. */
    static String cluster(Context ctx) {
        return required(ctx, "cluster", Patterns.NAME);
    }

    static String org(Context ctx) {
        return optional(ctx, "org", Patterns.TENANT_ID);
    }

    static String pool(Context ctx) {
        String pool = ctx.queryParam("pool");
        if (pool != null && !MarketRequests.POOL.matcher(pool).matches()) {
            throw Input.invalid("pool", "must read site/nodeClass, such as us-central1/h100-8x");
        }
        return pool;
    }

    /** The query parameter, null when absent; one that is there must match {@code pattern}. */
    static String optional(Context ctx, String name, Pattern pattern) {
        String value = ctx.queryParam(name);
        if (value != null && !pattern.matcher(value).matches()) {
            throw Input.invalid(name, "must match " + pattern.pattern());
        }
        return value;
    }

    static String required(Context ctx, String name, Pattern pattern) {
        String value = ctx.queryParam(name);
        if (value == null || value.isEmpty()) {
            throw Input.invalid(name, "is required");
        }
        if (!pattern.matcher(value).matches()) {
            throw Input.invalid(name, "must match " + pattern.pattern());
        }
        return value;
    }
}
