package com.bettercompute.bootstrap;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CloserTest {

    @Test
    void closes_the_last_started_first_and_names_each_part_in_the_stop_line() {
        List<String> closed = new ArrayList<>();
        Closer closer = new Closer();
        closer.add("database", () -> closed.add("database"));
        closer.add("provider", () -> closed.add("provider"));
        closer.add("api", () -> closed.add("api"));

        String line = closer.close();

        assertThat(closed).containsExactly("api", "provider", "database");
        assertThat(line).matches("stopped: api \\d+ ms provider \\d+ ms database \\d+ ms");
    }

    @Test
    void a_part_that_fails_to_close_leaves_the_others_closed() {
        List<String> closed = new ArrayList<>();
        Closer closer = new Closer();
        closer.add("database", () -> closed.add("database"));
        closer.add("provider", () -> {
            throw new IllegalStateException("provider stuck");
        });
        closer.add("api", () -> closed.add("api"));

        closer.close();

        assertThat(closed).containsExactly("api", "database");
    }

    @Test
    void a_start_that_failed_half_way_closes_what_was_started_and_keeps_the_failure() {
        List<String> closed = new ArrayList<>();
        Closer closer = new Closer();
        closer.add("database", () -> closed.add("database"));
        closer.add("provider", () -> {
            closed.add("provider");
            throw new IllegalStateException("provider stuck");
        });
        RuntimeException failure = new IllegalArgumentException("option --admission-url must be https://HOST[:PORT]");

        closer.closeAfter(failure);

        assertThat(closed).containsExactly("provider", "database");
        assertThat(failure.getSuppressed()).singleElement().extracting(Throwable::getMessage).isEqualTo("provider stuck");
    }

    @Test
    void each_part_is_closed_once() {
        List<String> closed = new ArrayList<>();
        Closer closer = new Closer();
        closer.add("api", () -> closed.add("api"));

        closer.close();
        assertThat(closer.close()).isEqualTo("stopped:");

        assertThat(closed).containsExactly("api");
    }
}
