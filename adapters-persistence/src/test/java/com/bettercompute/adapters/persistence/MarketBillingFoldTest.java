package com.bettercompute.adapters.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import com.bettercompute.domain.market.PriorityClass;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Migration V53 on a database the tick wrote before it (V52): the billing text's newer cursors and charged totals
 * go into the rows, each tenant's total becomes what its closed entries add up to, and the market loads as it
 * stood, every balance the same.
 */
class MarketBillingFoldTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final PoolId POOL = PoolId.parse("eu-west/h100-8x");

    @Test
    void on_h2_the_billing_text_is_folded_into_the_rows_and_the_market_loads_as_it_stood() {
        String url = "jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        foldsAndLoadsAsItStood(url, "sa", "");
    }

    @Test
    void on_postgresql_the_billing_text_is_folded_into_the_rows_and_the_market_loads_as_it_stood() {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        try {
            foldsAndLoadsAsItStood(pg.url(), pg.user(), pg.password());
        } finally {
            TestPostgres.drop(pg);
        }
    }

    private static void foldsAndLoadsAsItStood(String url, String user, String password) {
        // a grant ready at 00:00: at 00:50 its row was written; at 01:10 (its first hour closed, ten minutes open)
        // the text held its cursor and the tenant's charged total
        Market market = new Market();
        market.addPool(POOL, 8, Money.parse("1.00"));
        market.addNode("n1", POOL);
        market.addTenant("acme", Money.usd(1_000));
        market.addTenant("beta", Money.usd(50));
        market.addCluster("acme-c", "acme", 1_000, Money.parse("2.00"));
        market.addCluster("beta-c", "beta", 1_000, Money.parse("3.00"));
        market.file(new JobDemand("a", "acme-c", POOL, 8, null, PriorityClass.NONE), T0);
        market.tick(T0).events().stream().filter(MarketEvent.NodeGranted.class::isInstance)
                .forEach(e -> market.nodeReady(((MarketEvent.NodeGranted) e).nodeId(), T0));
        market.tick(T0.plus(Duration.ofMinutes(50)));
        MarketSnapshot rowsWritten = market.snapshot();
        market.tick(T0.plus(Duration.ofMinutes(70)));
        MarketSnapshot asItStood = market.snapshot();
        long charged = market.tenant("acme").charged().micros();
        assertThat(asItStood.tenants().get(0).settledMicros()).as("the hour closed at 2.00 x 8 GPUs").isEqualTo(16_000_000L);

        Flyway.configure().dataSource(url, user, password).locations("classpath:db/migration").target("52").load().migrate();
        Jdbi.create(url, user, password).useHandle(h -> writeAsBeforeV53(h, rowsWritten, asItStood, charged));

        try (Database db = Database.open(url, user, password)) {
            Market loaded = db.newMarketRepository(new MutableClock()).load();
            assertThat(sorted(loaded.snapshot())).isEqualTo(sorted(asItStood));
            assertThat(loaded.tenant("acme").charged().micros()).as("the balance as it stood").isEqualTo(charged);
            int billingTables = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM information_schema.tables"
                    + " WHERE LOWER(table_name) = 'market_billing'").mapTo(Integer.class).one());
            assertThat(billingTables).as("the text's table is gone").isZero();
        }
    }

    /** The rows as the tick left them at V52: the grant's row older than its cursor in the text, the totals in the text. */
    private static final List<String> NODE_AT_V52 = MarketRows.NODE.stream().filter(c -> !c.equals("block_ready_at")).toList();

    private static void writeAsBeforeV53(Handle h, MarketSnapshot rows, MarketSnapshot now, long charged) {
        MarketRows.bindState(h.createUpdate("UPDATE market_state SET version = 7, " + Db.assignments(MarketRows.STATE)
                + " WHERE id = 1"), now, 100).execute();
        for (MarketSnapshot.PoolState p : now.pools()) {
            MarketRows.bindPool(h.createUpdate(Db.insertSql("market_pools", MarketRows.POOL)), p).execute();
            for (MarketSnapshot.NodeState n : p.nodes()) {
                // the node's columns as they stood at V52 (later ones are bound but not written)
                MarketRows.bindNode(h.createUpdate(Db.insertSql("market_nodes", NODE_AT_V52)), p.id(), n)
                        .configure(SqlStatements.class, s -> s.setUnusedBindingAllowed(true)).execute();
            }
        }
        long ord = 0;
        for (MarketSnapshot.TenantState t : now.tenants()) {
            h.createUpdate("INSERT INTO market_tenants (id, ord, credits_micros, charged_micros) VALUES (?, ?, ?, 0)")
                    .bind(0, t.id()).bind(1, ord++).bind(2, t.creditsMicros()).execute();
        }
        for (MarketSnapshot.ClusterState c : now.clusters()) {
            MarketRows.bindCluster(h.createUpdate(Db.insertSql("market_clusters", MarketRows.CLUSTER)), c, ord++).execute();
        }
        for (MarketSnapshot.RequestState r : now.requests()) {
            MarketRows.bindRequest(h.createUpdate("INSERT INTO market_requests (" + String.join(", ", MarketRows.REQUEST)
                    + ", is_open) VALUES (" + String.join(", ", MarketRows.REQUEST.stream().map(c -> ":" + c).toList())
                    + ", TRUE)"), r).execute();
        }
        for (GrantState g : rows.grants()) {
            MarketRows.bindGrant(h.createUpdate(Db.insertSql("market_grants", MarketRows.GRANT)), g, ord++, null).execute();
        }
        GrantState g = now.grants().get(0);
        String text = "#2\n" + g.id() + " " + g.marketRate() + " " + (g.lockedInForce() ? 1 : 0) + " " + nanos(g.billedUntil())
                + " " + nanos(g.entryFrom()) + " " + g.entryRate() + " " + (g.entryLocked() ? 1 : 0) + " " + g.entryAccrued()
                + " " + g.carry() + "\n=acme " + charged + "\n";
        h.createUpdate("INSERT INTO market_billing (chunk, cursors) VALUES (0, ?)").bind(0, text).execute();
    }

    private static long nanos(Instant at) {
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    private static MarketSnapshot sorted(MarketSnapshot s) {
        return new MarketSnapshot(s.timings(), s.lastTick(), s.sequence(), s.grantSequence(), s.pools(), s.tenants(),
                s.clusters(), s.requests(), s.grants().stream().sorted(Comparator.comparing(GrantState::id)).toList(),
                s.idleOrder(), s.betweenTicks(), s.endedAttempts());
    }
}
