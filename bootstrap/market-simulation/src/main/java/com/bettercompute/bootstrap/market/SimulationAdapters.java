package com.bettercompute.bootstrap.market;

import com.bettercompute.application.port.MarketEffects;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PoolTick;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/** The simulator's in-memory ports: they keep what the report needs and nothing else. */
final class SimulationAdapters {
    /** A simulation is one thread with nothing to roll back. */
    static final Transactions NO_TRANSACTIONS = new Transactions() {
        @Override
        public <T> T inTransaction(Supplier<T> work) {
            return work.get();
        }
    };

    /** The report counts the market's own events; the outbox's copies of them are not kept. */
    static final EventOutbox NO_OUTBOX = new EventOutbox() {
        @Override
        public void append(DomainEvent event) {
        }

        @Override
        public List<StoredEvent> read(long after, int limit, String tenantId) {
            return List.of();
        }
    };

    private SimulationAdapters() {
    }

    static final class Repository implements MarketRepository {
        private Market market;
        private long saves;

        Repository(Market market) {
            this.market = market;
        }

        @Override
        public Market load() {
            return market;
        }

        @Override
        public long version() {
            return saves;
        }

        @Override
        public void save(Market m) {
            this.market = m;
            saves++;
        }

        @Override
        public List<Episode> episodes(String clusterId) {
            return List.of();
        }

        @Override
        public List<Closed> closed(String clusterId, int limit) {
            return List.of();
        }
    }

    /** Sums charges per tenant; a simulation never replays a tick, so it keeps no keys. */
    static final class Ledger implements MarketLedger {
        final Map<String, Long> byTenant = new TreeMap<>();
        final Map<PoolId, Long> byPool = new TreeMap<>();
        long total;

        @Override
        public int record(List<Charge> charges) {
            for (Charge c : charges) {
                long micros = c.amount().micros();
                byTenant.merge(c.tenantId(), micros, Long::sum);
                byPool.merge(c.pool(), micros, Long::sum);
                total += micros;
            }
            return charges.size();
        }

        @Override
        public Money chargedTo(String tenantId) {
            return Money.ofMicros(byTenant.getOrDefault(tenantId, 0L));
        }

        @Override
        public List<Charge> latest(String tenantId, int limit) {
            return List.of();
        }

        @Override
        public List<HourlyCharge> hourly(String tenantId) {
            return List.of();
        }

        @Override
        public boolean credit(CreditTopUp topUp) {
            return true;
        }

        @Override
        public List<CreditTopUp> credits(String tenantId, int limit) {
            return List.of();
        }
    }

    static final class Feed implements MarketFeed {
        final Map<PoolId, List<PoolTick>> series = new TreeMap<>();

        @Override
        public void append(List<PoolTick> ticks) {
            for (PoolTick t : ticks) {
                series.computeIfAbsent(t.pool(), p -> new ArrayList<>()).add(t);
            }
        }

        @Override
        public List<Entry> after(long after, PoolId pool, int limit) {
            return List.of();
        }

        @Override
        public List<PoolTick> latest(PoolId pool, int limit) {
            List<PoolTick> all = series.getOrDefault(pool, List.of());
            return all.subList(Math.max(0, all.size() - limit), all.size());
        }
    }

    /** What the clusters would have been told, kept in order for the event log. */
    static final class Effects implements MarketEffects {
        final List<MarketEvent> log = new ArrayList<>();
        final Map<Class<?>, Integer> counts = new HashMap<>();

        @Override
        public void apply(List<MarketEvent> events) {
            for (MarketEvent e : events) {
                counts.merge(e.getClass(), 1, Integer::sum);
                if (!(e instanceof MarketEvent.ReasonChanged)) {
                    log.add(e);
                }
            }
        }

        int count(Class<? extends MarketEvent> type) {
            return counts.getOrDefault(type, 0);
        }
    }
}
