package com.bettercompute.adapters.persistence;

import com.bettercompute.adapters.persistence.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The create checks' plan on PostgreSQL, in a table whose statistics were never gathered (a new database, or a tenant
 * whose clusters came faster than autovacuum): every name is one probe of the unique index, never a walk over the
 * tenant's clusters or a scan of the table, whose cost would grow with every cluster the tenant has.
 */
class PostgresCreateChecksPlanTest {
    private TestPostgres.Db db;
    private Database database;

    @BeforeEach
    void open() {
        db = TestPostgres.newDatabase();
        database = Database.open(db.url(), db.user(), db.password());
    }

    @AfterEach
    void close() {
        database.close();
        TestPostgres.drop(db);
    }

    @Test
    void the_name_and_id_checks_probe_the_indexes_of_a_table_never_analyzed() throws Exception {
        // statistics gathered while the table was empty (autovacuum on a new database), then a tenant's 20,000 clusters
        database.jdbi().useHandle(h -> {
            h.execute("ANALYZE clusters");
            h.execute("INSERT INTO clusters (id, tenant_id, name, active_name, authorized_networks_json, private_nodes, state,"
                    + " version, created_at, updated_at) SELECT 'kcl_' || i, 'acme', 'c-' || i, 'c-' || i, '[]', false, 'pending',"
                    + " 1, now(), now() FROM generate_series(1, 20000) AS i");
        });
        List<String> plan = new ArrayList<>();
        database.jdbi().useHandle(h -> {
            Connection c = h.getConnection();
            try (PreparedStatement explain = c.prepareStatement("EXPLAIN " + JdbiClusterRepository.CHECKS_POSTGRES)) {
                explain.setArray(1, c.createArrayOf("varchar", Collections.nCopies(20, "acme").toArray()));
                explain.setArray(2, c.createArrayOf("varchar", names(20)));
                explain.setArray(3, c.createArrayOf("varchar", new Object[] {"acme"}));
                explain.setArray(4, c.createArrayOf("varchar", ids(20)));
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            }
        });
        String text = String.join("\n", plan);
        // a name is an index condition on both columns, never a filter over the rows of the tenant's index range
        assertThat(plan).as(text).anyMatch(line -> line.contains("Index Cond") && line.contains("tenant_id") && line.contains("active_name"))
                .noneMatch(line -> line.contains("Filter") && line.contains("active_name"));
        assertThat(text).contains("clusters_active_name_uq").contains("clusters_pkey").doesNotContain("Seq Scan on clusters");
    }

    private static Object[] names(int n) {
        Object[] names = new Object[n];
        for (int i = 0; i < n; i++) {
            names[i] = "new-" + i;
        }
        return names;
    }

    private static Object[] ids(int n) {
        Object[] ids = new Object[n];
        for (int i = 0; i < n; i++) {
            ids[i] = "kcl_new" + i;
        }
        return ids;
    }
}
