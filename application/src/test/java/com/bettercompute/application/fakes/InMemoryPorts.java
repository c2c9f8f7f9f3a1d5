package com.bettercompute.application.fakes;

/** Every fake of the driven ports on one shared {@link InMemoryStore}, and a {@link MutableClock}. */
public record InMemoryPorts(
        InMemoryStore store,
        InMemoryTransactions transactions,
        InMemoryClusterRepository clusters,
        InMemoryCatalogRepository catalog,
        InMemoryAccessRepository access,
        InMemoryEventOutbox outbox,
        InMemoryUsageLedger usage,
        InMemoryMarketRepository markets,
        InMemoryMarketLedger marketLedger,
        InMemoryMarketFeed marketFeed,
        MutableClock clock) {

    public static InMemoryPorts create() {
        InMemoryStore store = new InMemoryStore();
        MutableClock clock = new MutableClock();
        return new InMemoryPorts(store, new InMemoryTransactions(store), new InMemoryClusterRepository(store),
                new InMemoryCatalogRepository(store), new InMemoryAccessRepository(store),
                new InMemoryEventOutbox(store), new InMemoryUsageLedger(store),
                new InMemoryMarketRepository(store, clock), new InMemoryMarketLedger(store),
                new InMemoryMarketFeed(store), clock);
    }
}
