package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.input.Input;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/k8s/market/feed?pool=&after=&limit=}: the public feed after a cursor, for any
 * authenticated caller. {@code next} is the sequence to read after next time (the cursor stays where it
 * was when nothing is new).
 */
public final class ReadMarketFeed {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    public record Page(List<MarketFeed.Entry> items, long next) {
    }

    private final MarketFeed feed;
    private final MarketRepository markets;

    public ReadMarketFeed(MarketFeed feed, MarketRepository markets) {
        this.feed = feed;
        this.markets = markets;
    }

    /** @param pool null for every pool; an unknown pool is NOT_FOUND */
    public Page read(String pool, long after, int limit) {
        if (after < 0) {
            throw Input.invalid("after", "must be 0 or more");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Input.invalid("limit", "must be between 1 and " + MAX_LIMIT);
        }
        PoolId id = pool == null ? null : known(pool);
        List<MarketFeed.Entry> items = feed.after(after, id, limit);
        return new Page(items, items.isEmpty() ? after : items.get(items.size() - 1).sequence());
    }

    /** The pools of the market, in id order: what the feed can be read for. */
    public List<String> pools() {
        return markets.load().pools().stream().map(p -> p.id().toString()).sorted().toList();
    }

    /** The latest {@code limit} ticks of a known pool, oldest first (NOT_FOUND for an unknown pool). */
    public List<PoolTick> recent(String pool, int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Input.invalid("limit", "must be between 1 and " + MAX_LIMIT);
        }
        return List.copyOf(feed.latest(known(pool), limit));
    }

    private PoolId known(String pool) {
        PoolId id;
        try {
            id = PoolId.parse(pool);
        } catch (DomainException e) {
            throw Input.invalid("pool", "must read site/nodeClass, such as us-central1/h100-8x");
        }
        // a pool with a feed entry is known; only one without any costs a load of the market
        if (feed.latest(id, 1).isEmpty() && markets.load().pools().stream().noneMatch(p -> p.id().equals(id))) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No market pool " + pool + ".", Map.of("field", "pool"));
        }
        return id;
    }
}
