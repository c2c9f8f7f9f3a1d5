package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PriorityClass;
import org.junit.jupiter.api.Test;

import static com.bettercompute.adapters.persistence.MarketStoreContract.EU;
import static com.bettercompute.adapters.persistence.MarketStoreContract.busyMarket;
import static org.assertj.core.api.Assertions.assertThat;

/** A save writes the rows that changed, not the book: what only the database adapter can show. */
abstract class JdbiMarketWritesContract extends PortsContract {
    private JdbiMarketRepository markets() {
        return (JdbiMarketRepository) ports.markets();
    }

    @Test
    void a_save_writes_only_the_rows_that_changed() {
        Market m = busyMarket(markets().load());
        for (int i = 0; i < 200; i++) {
            m.file(new JobDemand("wait-" + i, "acme-c", EU, 8, Money.parse("0.01"), PriorityClass.NONE),
                    m.lastTick().plusSeconds(40));
        }
        markets().save(m);
        assertThat(markets().lastSaveRows()).as("the first save writes everything").isGreaterThan(200);

        Market same = markets().load();
        markets().save(same);
        assertThat(markets().lastSaveRows()).as("nothing changed").isZero();

        Market one = markets().load();
        one.setClusterLimit("beta-c", Money.parse("4.00"));
        markets().save(one);
        assertThat(markets().lastSaveRows()).as("one cluster's limit").isEqualTo(1);

        Market filed = markets().load();
        filed.file(new JobDemand("late", "acme-c", EU, 8, Money.parse("0.01"), PriorityClass.NONE),
                filed.lastTick().plusSeconds(50));
        markets().save(filed);
        assertThat(markets().lastSaveRows()).as("a request filed, its cluster's use").isEqualTo(2);
        assertThat(ports.anotherMarketRepository().get().load().snapshot()).isEqualTo(filed.snapshot());
    }

    @Test
    void a_tick_where_nothing_changed_writes_no_row_of_the_book() {
        Market m = busyMarket(markets().load());
        markets().save(m);
        java.time.Instant at = m.lastTick().plusSeconds(60);
        Market first = markets().load();
        first.tick(at);
        markets().save(first);
        assertThat(markets().lastSaveRows()).as("a tick that moved the clock").isPositive();

        // the tick after it still decides something (a pool whose gang was admitted has no price now)
        Market settled = markets().load();
        settled.tick(at);
        markets().save(settled);

        Market again = markets().load();
        again.tick(at);
        markets().save(again);

        assertThat(markets().lastSaveRows()).isZero();
    }

    /**
     * Random filings, job ends, limits, node facts (ready, out of service, back, removed, added) and ticks,
     * each step loaded, changed and saved (in a writer's transaction or not): every save writes exactly the rows
     * whose state differs from the last save's (requests, grants and nodes alike, though only the recorded ones
     * are compared; counted here by comparing whole snapshots, a grant's billing cursor only when its ledger entry
     * opened or closed for good), and another replica reading every row loads a market equal to the one in memory.
     */
    @Test
    void random_ticks_save_exactly_the_changed_rows_and_the_database_restores_the_market_in_memory() {
        markets().save(busyMarket(markets().load()));
        java.util.SplittableRandom random = new java.util.SplittableRandom(20261201L);
        MarketSnapshot before = markets().load().snapshot();
        for (int step = 0; step < 90; step++) {
            int op = random.nextInt(14);
            long seconds = random.nextInt(4) == 0 ? 0 : 5 + random.nextInt(900);
            int job = random.nextInt(25);
            Market[] held = new Market[1];
            java.util.function.Supplier<Void> change = () -> {
                Market m = markets().load();
                java.time.Instant at = m.lastTick().plusSeconds(seconds);
                try {
                    switch (op) {
                        case 0, 1 -> m.file(new JobDemand("r" + job, random.nextBoolean() ? "acme-c" : "beta-c",
                                random.nextBoolean() ? EU : MarketStoreContract.US, random.nextBoolean() ? 8 : 4,
                                Money.ofMicros(random.nextInt(5_000_000)), PriorityClass.NONE), at);
                        case 2 -> m.endJob("r" + job, at);
                        case 3 -> m.setJobLimit("r" + job, Money.ofMicros(random.nextInt(5_000_000)));
                        case 4 -> m.nodeOutOfService("eu-" + random.nextInt(6), at);
                        case 5 -> m.nodeBack("eu-" + random.nextInt(6), at);
                        case 6 -> m.setClusterLimit("acme-c", Money.ofMicros(1_000_000 + random.nextInt(3_000_000)));
                        case 7 -> m.removeNode("eu-" + random.nextInt(6), at);
                        case 8 -> m.addNode("eu-" + random.nextInt(6), EU);
                        case 9 -> m.nodeReady("eu-" + random.nextInt(6), at);
                        case 10 -> m.tick(at);
                        default -> MarketStoreContract.tickReady(m, at);
                    }
                } catch (com.bettercompute.domain.DomainException refused) {
                    // a refused call changes nothing; the save still runs
                }
                markets().save(m);
                held[0] = m;
                return null;
            };
            if (step % 2 == 0) {
                ports.transactions().inTransaction(change);
            } else {
                change.get();
            }
            MarketSnapshot after = held[0].snapshot();
            assertThat(markets().lastSaveRows()).as("step %d (op %d): the rows that differ", step, op)
                    .isEqualTo(differingRows(before, after));
            assertThat(ports.anotherMarketRepository().get().load().snapshot()).as("step %d", step).isEqualTo(after);
            before = after;
        }
    }

    /** Entities whose state differs between two snapshots, by id (requests by filing sequence), gone ones too. */
    private static int differingRows(MarketSnapshot a, MarketSnapshot b) {
        java.util.function.Function<MarketSnapshot, java.util.Map<String, Object>> rows = s -> {
            java.util.Map<String, Object> out = new java.util.HashMap<>();
            for (MarketSnapshot.PoolState p : s.pools()) {
                out.put("pool " + p.id(), java.util.List.of(p.gpusPerNode(), String.valueOf(p.reserve()),
                        String.valueOf(p.lastPrice()), p.reclaimingIds(), p.drainingIds()));
                p.nodes().forEach(n -> out.put("node " + n.id(), n));
            }
            s.tenants().forEach(t -> out.put("tenant " + t.id(), t));
            s.clusters().forEach(c -> out.put("cluster " + c.id(), c));
            // a grant's billing cursor is written when its entry opens or closes for good, not as it accrues nor as
            // it goes on into the next period at the same rate
            s.grants().forEach(g -> out.put("grant " + g.id(), java.util.Arrays.asList(new MarketSnapshot.GrantState(
                    g.id(), g.nodeId(), g.pool(), g.clusterId(), g.gpus(), g.lockedRate(), g.grantedAt(), g.readyAt(),
                    g.holdUntil(), g.protectedUntil(), g.replacement(), g.requestId(), g.idleSince(), g.marketRate(),
                    g.lockedInForce(), null, g.endsAt(), null, g.entryRate(), g.entryLocked(), 0, 0), g.entryFrom() == null)));
            s.requests().forEach(r -> out.put("request " + r.sequence(), r));
            return out;
        };
        java.util.Map<String, Object> x = rows.apply(a);
        java.util.Map<String, Object> y = rows.apply(b);
        java.util.Set<String> keys = new java.util.HashSet<>(x.keySet());
        keys.addAll(y.keySet());
        int differing = 0;
        for (String key : keys) {
            if (!java.util.Objects.equals(x.get(key), y.get(key))) {
                differing++;
            }
        }
        return differing;
    }
}
