package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.cluster.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatabaseTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "jdbc:h2:file:./data/better-compute | jdbc:h2:file:./data/better-compute;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;LOCK_TIMEOUT=10000;WRITE_DELAY=0",
            "jdbc:h2:mem:x                      | jdbc:h2:mem:x;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1",
            "jdbc:h2:mem:x;lock_timeout=5       | jdbc:h2:mem:x;lock_timeout=5;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1",
            "jdbc:postgresql://db:5432/bc?user=u | jdbc:postgresql://db:5432/bc?user=u",
            "embedded-postgres:./data/postgres   | embedded-postgres:./data/postgres",
    })
    void h2_urls_get_the_flags_they_lack(String given, String opened) {
        assertThat(Database.effectiveUrl(given)).isEqualTo(opened);
    }

    @Test
    void the_default_is_the_embedded_postgresql_under_data() {
        assertThat(Database.DEFAULT_URL).isEqualTo("embedded-postgres:./data/postgres");
    }

    @ParameterizedTest
    @CsvSource({"jdbc:mysql://db/bc?password=secret", "embedded-postgres:", "postgres:./data"})
    void urls_of_no_known_kind_are_refused_without_echoing_them(String url) {
        assertThatThrownBy(() -> Database.effectiveUrl(url))
                .isInstanceOf(IllegalStateException.class).message().contains("embedded-postgres:DIRECTORY").doesNotContain("secret");
    }

    @Test
    void other_urls_are_refused_without_echoing_them() {
        assertThatThrownBy(() -> Database.open("jdbc:mysql://db/bc?password=secret"))
                .isInstanceOf(IllegalStateException.class).message().doesNotContain("secret");
    }

    @Test
    void a_file_database_keeps_its_rows_across_restarts(@TempDir Path dir) {
        String url = "jdbc:h2:file:" + dir.resolve("better-compute");
        Cluster c = Samples.full("acme", "train", T0);
        try (Database db = Database.open(url)) {
            assertThat(db.postgres()).isFalse();
            Samples.insert(db.clusters(), c);
        }
        try (Database db = Database.open(url)) {
            assertThat(db.clusters().find(c.id())).contains(c);
        }
    }
}
