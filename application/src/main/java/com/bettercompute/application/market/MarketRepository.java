package com.bettercompute.application.market;

import com.bettercompute.domain.market.Market;

/**
 * The market's state: pools, nodes, tenants' balances and clusters, requests and node grants. The
 * tick runs on one replica at a time (an advisory lock in the persistence adapter), and every use
 * case is load, decide, save. An adapter stores {@link Market#snapshot()} and loads with
 * {@link Market#restore}; the snapshot keeps every order the tick depends on.
 */
public interface MarketRepository {
    /** The market as last saved, or an empty market if nothing was saved yet. Never null. */
    Market load();

    /**
     * Saves the whole market; the next {@link #load()} returns an equivalent market. A save replaces
     * the previous one; the adapter keeps it atomic (all of it or none of it).
     */
    void save(Market market);
}
