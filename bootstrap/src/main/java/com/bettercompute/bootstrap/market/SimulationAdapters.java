package com.bettercompute.bootstrap.market;

import com.bettercompute.application.market.CreditTopUp;
import com.bettercompute.application.market.FeedEntry;
import com.bettercompute.application.market.HourlyCharge;
import com.bettercompute.application.market.MarketEffects;
import com.bettercompute.application.market.MarketFeed;
import com.bettercompute.application.market.MarketLedger;
import com.bettercompute.application.market.MarketRepository;
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

/** The simulator's in-memory ports: they keep what the report needs and nothing else. */
final class SimulationAdapters {
    private SimulationAdapters() {
    }

    static final class Repository implements MarketRepository {
        private Market market;

        Repository(Market market) {
            this.market = market;
        }

        @Override
        public Market load() {
            return market;
        }

        @Override
        public void save(Market m) {
            this.market = m;
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

        // The simulator keeps totals for its report, not entries: a scenario has no top-ups and no reader
        // of the latest entries or the hourly usage.
        @Override
        public java.util.Optional<CreditTopUp> topUp(String key) {
            return java.util.Optional.empty();
        }

        @Override
        public void recordTopUp(CreditTopUp topUp) {
            throw new IllegalStateException("a market simulation takes no credit top-ups");
        }

        @Override
        public List<Charge> latestCharges(String tenantId, int limit) {
            return List.of();
        }

        @Override
        public List<CreditTopUp> latestTopUps(String tenantId, int limit) {
            return List.of();
        }

        @Override
        public List<HourlyCharge> hourlyCharges(String tenantId, int limit) {
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
        public List<PoolTick> latest(PoolId pool, int limit) {
            List<PoolTick> all = series.getOrDefault(pool, List.of());
            return all.subList(Math.max(0, all.size() - limit), all.size());
        }

        @Override
        public List<FeedEntry> after(long after, PoolId pool, int limit) {
            // the report reads the series per pool; nothing reads the simulator's feed by cursor
            return List.of();
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
