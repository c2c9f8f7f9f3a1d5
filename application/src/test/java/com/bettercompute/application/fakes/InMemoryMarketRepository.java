package com.bettercompute.application.fakes;

import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketChanges;
import com.bettercompute.domain.market.MarketSnapshot;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * {@link MarketRepository} on an {@link InMemoryStore}, kept as a snapshot like a database keeps it: every
 * load is a fresh market restored from the last save, so a use case that forgets to save loses its change,
 * as it would in production. The store's one lock stands in for the row lock; a save of a market loaded
 * before another save is refused, as the real one refuses it.
 */
public final class InMemoryMarketRepository implements MarketRepository {
    private final InMemoryStore store;
    private final Clock clock;
    /** The version each handed-out market was loaded at (identity: a market does not override equals). */
    private final Map<Market, Long> loadedAt = new WeakHashMap<>();
    private int saves;
    private int loads;

    public InMemoryMarketRepository(InMemoryStore store, Clock clock) {
        this.store = Objects.requireNonNull(store);
        this.clock = Objects.requireNonNull(clock);
    }

    /** A repository of its own holding {@code market} as saved. */
    public InMemoryMarketRepository(Market market, Clock clock) {
        this(new InMemoryStore(), clock);
        save(market, true);
    }

    public InMemoryMarketRepository() {
        this(new Market(), new MutableClock());
    }

    @Override
    public long version() {
        return store.locked(s -> s.marketVersion);
    }

    @Override
    public Market load() {
        return store.locked(s -> {
            loads++;
            Market market = Market.restore(s.market == null ? new Market().snapshot() : s.market);
            synchronized (loadedAt) {
                loadedAt.put(market, s.marketVersion);
            }
            return market;
        });
    }

    @Override
    public void save(Market market) {
        save(market, false);
    }

    private void save(Market market, boolean seed) {
        Long version;
        synchronized (loadedAt) {
            version = seed ? Long.valueOf(0) : loadedAt.get(market);
        }
        if (version == null) {
            throw new DomainException(ErrorCode.INVALID_STATE, "a market is saved by the repository it was loaded from");
        }
        MarketSnapshot next = market.snapshot();
        // a seeded market was built call by call and records no changes; nothing of it has left yet
        List<MarketChanges.Gone> gone = seed ? List.of() : market.changes().gone();
        Instant now = clock.instant();
        store.lockedRun(s -> {
            if (s.marketVersion != version) {
                throw new DomainException(ErrorCode.CONFLICT, "the market changed meanwhile; load it again and retry");
            }
            // every request ever filed keeps its episode, one filed and gone since the last save too
            for (MarketChanges.Gone g : gone) {
                String end = g.revoked() ? Episode.REVOKED : Episode.ENDED;
                MarketSnapshot.RequestState r = g.last();
                Episode known = s.episodes.get(g.sequence());
                s.episodes.put(g.sequence(), known != null
                        ? new Episode(known.requestId(), known.jobId(), known.attempt(), known.clusterId(),
                                known.pool(), known.queuedAt(), known.runningAt(), g.endedAt(), end)
                        : new Episode(r.id(), r.jobId(), r.attempt(), r.clusterId(), r.pool().toString(), r.createdAt(),
                                null, g.endedAt(), end));
                s.closed.put(g.sequence(), new Closed(r, g.endedAt(), end));
            }
            recordEpisodes(s, next, now);
            s.market = next;
            s.marketVersion++;
            synchronized (loadedAt) {
                loadedAt.put(market, s.marketVersion);
            }
            saves++;
        });
    }

    /** Opens an episode for each new request, marks the provisioned ones running, ends the ones gone. */
    private static void recordEpisodes(InMemoryStore.State s, MarketSnapshot next, Instant now) {
        Map<Long, MarketSnapshot.RequestState> open = new HashMap<>();
        Map<String, Integer> latestAttempt = new HashMap<>();
        for (MarketSnapshot.RequestState r : next.requests()) {
            open.put(r.sequence(), r);
            latestAttempt.merge(r.jobId(), r.attempt(), Math::max);
            Episode known = s.episodes.get(r.sequence());
            if (known == null) {
                s.episodes.put(r.sequence(), new Episode(r.id(), r.jobId(), r.attempt(), r.clusterId(),
                        r.pool().toString(), r.createdAt(), r.provisioned() ? now : null, null, null));
            } else if (known.runningAt() == null && r.provisioned()) {
                s.episodes.put(r.sequence(), new Episode(known.requestId(), known.jobId(), known.attempt(),
                        known.clusterId(), known.pool(), known.queuedAt(), now, null, null));
            }
        }
        for (Map.Entry<Long, Episode> e : s.episodes.entrySet()) {
            Episode known = e.getValue();
            if (known.endedAt() == null && !open.containsKey(e.getKey())) {
                boolean requeued = latestAttempt.getOrDefault(known.jobId(), 0) > known.attempt();
                e.setValue(new Episode(known.requestId(), known.jobId(), known.attempt(), known.clusterId(),
                        known.pool(), known.queuedAt(), known.runningAt(), now,
                        requeued ? Episode.REVOKED : Episode.ENDED));
            }
        }
    }

    @Override
    public List<Episode> episodes(String clusterId) {
        return store.locked(s -> s.episodes.values().stream().filter(e -> e.clusterId().equals(clusterId)).toList());
    }

    @Override
    public List<Closed> closed(String clusterId, int limit) {
        return store.locked(s -> {
            List<Closed> out = new java.util.ArrayList<>();
            for (Closed c : s.closed.values()) {
                if (c.last().clusterId().equals(clusterId)) {
                    out.add(0, c);
                }
            }
            return List.copyOf(out.subList(0, Math.min(limit, out.size())));
        });
    }

    /** Markets loaded so far, read or locked. */
    public int loads() {
        return store.locked(s -> loads);
    }

    /** Saves that committed so far. */
    public int saves() {
        return saves;
    }
}
