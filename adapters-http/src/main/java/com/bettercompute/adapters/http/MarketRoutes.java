package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.MarketRequests.BidBody;
import com.bettercompute.adapters.http.MarketViews.MarketBalance;
import com.bettercompute.adapters.http.MarketViews.MarketBid;
import com.bettercompute.adapters.http.MarketViews.MarketFeedItem;
import com.bettercompute.adapters.http.MarketViews.MarketFeedPage;
import com.bettercompute.adapters.http.MarketViews.MarketRequest;
import com.bettercompute.adapters.http.MarketViews.MarketRequestList;
import com.bettercompute.adapters.http.QueryString.Param;
import com.bettercompute.application.market.ReadMarketFeed;

import java.util.List;

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

    static final Param CLUSTER = Param.required("cluster", Wire.NAME, "the cluster's name in the organization");
    static final Param ORG = Param.optional("org", Wire.TENANT_ID, "the organization, for a token bound to several");
    static final List<Param> FEED_QUERY = List.of(
            Param.optional("pool", Wire.POOL, "only this pool's ticks"),
            EventRoutes.AFTER,
            Param.optional("limit", new Schema.Whole(1, ReadMarketFeed.MAX_LIMIT, (long) ReadMarketFeed.DEFAULT_LIMIT), "at most this many"));

    static void install(Router router, MarketUseCases m, FeedStreams streams) {
        router.put(BID, "Set the cluster's limit price (USD per GPU-hour)", BidBody.BODY, MarketBid.class,
                (caller, bid) -> MarketBid.of(m.bids().set(caller, bid.org(), bid.cluster(), bid.limit())));
        router.get(BID, "Read the cluster's limit price", List.of(CLUSTER, ORG), MarketBid.class,
                (caller, q) -> MarketBid.of(m.bids().read(caller, q.text("org"), q.text("cluster"))));
        router.delete(BID, "Withdraw the cluster's limit price (its jobs bid zero)", List.of(CLUSTER, ORG), MarketBid.class,
                (caller, q) -> MarketBid.of(m.bids().withdraw(caller, q.text("org"), q.text("cluster"))));
        router.get(REQUESTS, "The cluster's market requests with phase, reason, grants and episodes",
                List.of(CLUSTER, ORG), MarketRequestList.class,
                (caller, q) -> new MarketRequestList(m.requests().list(caller, q.text("org"), q.text("cluster")).stream()
                        .map(MarketRequest::of).toList()));
        router.getOrStream(FEED, "The market feed after a cursor; server-sent events with Accept: text/event-stream",
                FEED_QUERY, MarketFeedPage.class, (caller, q) -> {
                    ReadMarketFeed.Page page = m.feed().read(q.text("pool"), q.whole("after", 0),
                            (int) q.whole("limit", ReadMarketFeed.DEFAULT_LIMIT));
                    return new MarketFeedPage(page.items().stream().map(MarketFeedItem::of).toList(), page.next());
                }, streams::serve);
        router.get(BALANCE, "The organization's credits, charges, balance and latest ledger entries", List.of(ORG),
                MarketBalance.class, (caller, q) -> MarketBalance.of(m.balance().read(caller, q.text("org"))));
    }
}
