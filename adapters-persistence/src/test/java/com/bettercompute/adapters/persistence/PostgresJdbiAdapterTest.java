package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;

import java.util.Map;

class PostgresJdbiAdapterTest extends JdbiAdapterContract {
    private TestPostgres.Db pg;

    @Override
    protected Map.Entry<Database, Runnable> open() {
        pg = TestPostgres.newDatabase();
        return Map.entry(Database.open(pg.url(), pg.user(), pg.password()), () -> TestPostgres.drop(pg));
    }

    @Override
    protected Database reopen() {
        return Database.open(pg.url(), pg.user(), pg.password());
    }
}
