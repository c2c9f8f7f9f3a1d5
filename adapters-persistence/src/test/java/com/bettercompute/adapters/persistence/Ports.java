package com.bettercompute.adapters.persistence;

import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.AccessRepository;
import java.util.function.Supplier;
import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.UsageLedger;

/** The ports a contract test runs against, with a way to empty them between tests and to close them. */
record Ports(
        String backend,
        Transactions transactions,
        ClusterRepository clusters,
        CatalogRepository catalog,
        AccessRepository access,
        EventOutbox outbox,
        UsageLedger usage,
        MarketRepository markets,
        Supplier<MarketRepository> anotherMarketRepository,
        MarketLedger marketLedger,
        MarketFeed marketFeed,
        MutableClock clock,
        Runnable wipe,
        Runnable closer) implements AutoCloseable {

    @Override
    public void close() {
        closer.run();
    }

    @Override
    public String toString() {
        return backend;
    }
}
