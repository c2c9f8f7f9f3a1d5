package com.bettercompute.adapters.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * V50: the billing text the tick rewrites every five seconds is stored uncompressed on PostgreSQL (compressing
 * it cost three times the write), and the migration leaves H2, which has no such setting, as it was.
 */
class MarketBillingStorageTest {
    @Test
    void on_postgresql_the_billing_text_is_stored_without_compression() {
        TestPostgres.Db pg = TestPostgres.newDatabase();
        try (Database db = Database.open(pg.url(), pg.user(), pg.password())) {
            String storage = db.jdbi().withHandle(h -> h.createQuery("SELECT attstorage FROM pg_attribute"
                    + " WHERE attrelid = 'market_billing'::regclass AND attname = 'cursors'").mapTo(String.class).one());
            assertThat(storage).as("x: compressed when long (the default); e: external, uncompressed").isEqualTo("e");
        } finally {
            TestPostgres.drop(pg);
        }
    }

    @Test
    void on_h2_the_migration_does_nothing_and_the_billing_table_is_there() {
        try (Database db = Database.open("jdbc:h2:mem:bc_" + UUID.randomUUID().toString().replace("-", ""))) {
            int applied = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM \"flyway_schema_history\""
                    + " WHERE \"version\" = '50' AND \"success\"").mapTo(Integer.class).one());
            int rows = db.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM market_billing")
                    .mapTo(Integer.class).one());
            assertThat(applied).isEqualTo(1);
            assertThat(rows).isZero();
        }
    }
}
