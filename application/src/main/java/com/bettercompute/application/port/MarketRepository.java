package com.bettercompute.application.port;

import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketSnapshot;
import java.time.Instant;
import java.util.List;

/**
 * The market's state: pools, nodes, tenants' balances and clusters, requests and node grants. Every use
 * case is load, decide, save. An adapter stores {@link Market#snapshot()} and loads with
 * {@link Market#restore}; the snapshot keeps every order the tick depends on. A restored market records
 * what changed ({@link Market#changes()}), so a save need not compare the whole book.
 *
 * <p><b>Writers run inside {@code Transactions.inTransaction}.</b> There {@link #load()} locks the market
 * until the transaction ends, so the tick and the API's writes queue up one behind the other and never
 * lose each other's changes; the save, the ledger, the feed and the outbox events of the same
 * transaction commit together or not at all. A {@link #load()} outside a transaction locks nothing (a
 * read); should such a market be saved, the save is refused when another save committed since its load.
 */
public interface MarketRepository {
    /**
     * The market as last saved, or an empty market (standard timings) if nothing was saved yet. Never
     * null. Each call returns a market no other caller holds. Inside a transaction, locks the market
     * until it ends.
     */
    Market load();

    /**
     * A number that changes at every save, by any replica: what a reader derived from an earlier load still
     * holds while it reads the same number. A save by this process moves it once committed; another
     * replica's may reach it a few milliseconds after its commit (the adapter says how). Cheap (no market is
     * read); never throws but as {@link #load()} does.
     */
    long version();

    /**
     * Saves a market this repository loaded; the next {@link #load()} returns an equivalent market. The
     * adapter writes only what changed since that load (a tick's writes are proportional to what changed,
     * not to the size of the book), all of it or none of it.
     *
     * @throws com.bettercompute.domain.DomainException CONFLICT when another save committed since this
     *         market was loaded (nothing is written: load again and retry); INVALID_STATE for a market this
     *         repository did not load
     */
    void save(Market market);

    /**
     * Every request ever filed in a cluster, open or ended, each attempt of a job apart, in filing order:
     * when it was filed (queued), when its gang first ran (Provisioned=True), when and how it ended.
     */
    List<Episode> episodes(String clusterId);

    /**
     * The latest {@code limit} requests of a cluster that left the market (ended or revoked), the latest
     * first: each with its state as it left, when and how.
     */
    List<Closed> closed(String clusterId, int limit);

    /** A request that left the market: its last state, when it left, and {@link Episode#REVOKED} or {@link Episode#ENDED}. */
    record Closed(MarketSnapshot.RequestState last, Instant endedAt, String end) {
    }

    /**
     * One attempt of a job. {@code runningAt} is null until its gang was provisioned; {@code endedAt} and
     * {@code end} are null while it is open. {@code end}: {@code revoked} (the market took its nodes; the
     * job requeued as the next attempt) or {@code ended} (the job finished or was withdrawn).
     */
    record Episode(String requestId, String jobId, int attempt, String clusterId, String pool, Instant queuedAt,
                   Instant runningAt, Instant endedAt, String end) {
        /** The end of an attempt whose job requeued as a later attempt. */
        public static final String REVOKED = "revoked";
        /** The end of an attempt whose job finished or was withdrawn. */
        public static final String ENDED = "ended";
    }
}
