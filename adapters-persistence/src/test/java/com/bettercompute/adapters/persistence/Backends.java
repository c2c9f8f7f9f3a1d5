package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import com.bettercompute.application.fakes.InMemoryMarketRepository;
import com.bettercompute.application.fakes.InMemoryPorts;
import com.bettercompute.application.fakes.MutableClock;

import java.util.UUID;

/** The three backends every contract runs on: the in-memory fakes, Jdbi on H2 in memory, Jdbi on PostgreSQL. */
final class Backends {
    /** Children before parents, so the deletes never trip a foreign key. */
    private static final String[] TABLES = {"node_pools", "clusters", "cluster_counts", "subnets", "networks", "providers", "accounts",
            "pools", "offers", "tenants", "projects", "budgets", "role_bindings", "principals", "cluster_owners",
            "events", "usage_records", "market_pools", "market_nodes", "market_tenants", "market_clusters",
            "market_requests", "market_grants", "market_charges", "market_credits", "market_feed"};

    private Backends() {}

    static Ports inMemory() {
        InMemoryPorts p = InMemoryPorts.create();
        return new Ports("in-memory", p.transactions(), p.clusters(), p.catalog(), p.access(), p.outbox(), p.usage(),
                p.markets(), () -> new InMemoryMarketRepository(p.store(), p.clock()), p.marketLedger(), p.marketFeed(), p.clock(), p.store()::clear, () -> {});
    }

    /** A fresh H2 in-memory database. */
    static Ports h2() {
        return jdbi("h2", Database.open("jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", "")), () -> {});
    }

    /** A fresh database on the test PostgreSQL server. */
    static Ports postgres() {
        TestPostgres.Db db = TestPostgres.newDatabase();
        return jdbi("postgresql", Database.open(db.url(), db.user(), db.password()), () -> TestPostgres.drop(db));
    }

    private static Ports jdbi(String name, Database db, Runnable dropDatabase) {
        MutableClock clock = new MutableClock();
        return new Ports(name, db.transactions(), db.clusters(), db.catalog(), db.access(), db.outbox(), db.usage(),
                db.newMarketRepository(clock), () -> db.newMarketRepository(clock), db.marketLedger(), db.marketFeed(), clock,
                () -> db.jdbi().useHandle(h -> {
                    for (String table : TABLES) {
                        h.execute("DELETE FROM " + table);
                    }
                    h.execute("UPDATE market_state SET version = 0");
                }),
                () -> {
                    db.close();
                    dropDatabase.run();
                });
    }
}
