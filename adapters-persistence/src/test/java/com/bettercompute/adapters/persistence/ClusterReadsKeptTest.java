package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.domain.cluster.Cluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static com.bettercompute.adapters.persistence.Samples.minimal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JdbiClusterRepository#find} answers from memory until a write to clusters commits (docs/decisions/persistence-caches.md). To see what it answers from, the tests change a row behind the repository's
 * back (plain SQL, with PostgreSQL's notifying trigger off): a find that still shows the old description
 * answered from memory, one that shows the new one read the database. Each replica is a {@link Database} of its own on one PostgreSQL.
 */
class ClusterReadsKeptTest {
    private final Replicas replicas = new Replicas();

    @AfterEach
    void close() throws Exception {
        replicas.close();
    }

    @Test
    void on_h2_a_read_is_kept_until_a_write_commits_and_a_transaction_reads_its_own_writes(@TempDir Path dir) {
        Database db = replicas.h2(dir);
        ClusterRepository clusters = db.clusters();
        Cluster train = minimal("acme", "train", T0);
        Samples.insert(clusters, train);
        assertThat(description(clusters, train)).isNull();

        behindTheBack(db, train, "changed behind the back");
        assertThat(description(clusters, train)).as("kept: nothing was written through the repository").isNull();

        Cluster updated = train.toBuilder().description("through the repository").version(2).build();
        db.transactions().inTransaction(() -> {
            assertThat(clusters.update(updated, 1)).isTrue();
            assertThat(description(clusters, train)).as("inside the transaction: its own write")
                    .isEqualTo("through the repository");
            return null;
        });
        assertThat(description(clusters, train)).as("after the commit").isEqualTo("through the repository");

        assertThatThrownBy(() -> db.transactions().inTransaction(() -> {
            clusters.update(updated.toBuilder().description("rolled back").version(3).build(), 2);
            throw new IllegalStateException("rolled back");
        })).hasMessage("rolled back");
        assertThat(description(clusters, train)).as("a rolled back write changes nothing").isEqualTo("through the repository");

        Cluster other = minimal("acme", "serve", T0);
        Samples.insert(clusters, other);
        behindTheBack(db, train, "seen after any write");
        assertThat(description(clusters, train)).as("any write to clusters ends what was kept")
                .isEqualTo("seen after any write");
    }

    @Test
    void on_postgresql_another_replicas_write_reaches_a_listening_replica_and_one_not_listening_reads_the_database() throws Exception {
        Database first = replicas.postgres();
        Database second = replicas.postgres();
        Cluster train = minimal("acme", "train", T0);
        Samples.insert(first.clusters(), train);

        behindTheBack(first, train, "not listening");
        assertThat(description(second.clusters(), train)).as("not listening: every read goes to the database")
                .isEqualTo("not listening");

        Replicas.Listening listening = replicas.listen(second);
        Replicas.await(second::hearsClusterChanges, "the second replica listens");
        assertThat(description(second.clusters(), train)).isEqualTo("not listening");
        behindTheBack(first, train, "behind the back");
        assertThat(description(second.clusters(), train)).as("listening and nothing written: kept").isEqualTo("not listening");

        // any statement on the tables notifies (their trigger), not only the repository's writes
        first.jdbi().useHandle(h -> h.createUpdate("UPDATE clusters SET description = 'plain SQL' WHERE id = :id")
                .bind("id", train.id()).execute());
        awaitDescription(second.clusters(), train, "plain SQL");

        Cluster updated = train.toBuilder().description("written by the first replica").version(2).build();
        assertThat(first.clusters().update(updated, 1)).isTrue();
        awaitDescription(second.clusters(), train, "written by the first replica");

        listening.stop();
        behindTheBack(first, train, "listener stopped");
        assertThat(description(second.clusters(), train)).as("no longer listening: the database again")
                .isEqualTo("listener stopped");
    }

    private static String description(ClusterRepository clusters, Cluster c) {
        return clusters.find(c.id()).orElseThrow().description();
    }

    /**
     * A change no replica hears of: on PostgreSQL with the tables' trigger off for its own transaction (the
     * ALTER TABLE is part of it, so no other session ever sees the trigger off).
     */
    private static void behindTheBack(Database db, Cluster c, String description) {
        db.jdbi().useTransaction(h -> {
            if (db.postgres()) {
                h.execute("ALTER TABLE clusters DISABLE TRIGGER clusters_notify");
            }
            h.createUpdate("UPDATE clusters SET description = :d WHERE id = :id")
                    .bind("d", description).bind("id", c.id()).execute();
            if (db.postgres()) {
                h.execute("ALTER TABLE clusters ENABLE TRIGGER clusters_notify");
            }
        });
    }

    private static void awaitDescription(ClusterRepository clusters, Cluster c, String description) {
        Replicas.await(() -> description.equals(description(clusters, c)), "the replica reads \"" + description + "\"");
    }
}
