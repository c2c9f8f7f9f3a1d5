package com.bettercompute.adapters.persistence;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A row as a line of COPY's text format ({@link Db#copyLine}), value by value. What PostgreSQL reads back from such
 * lines is {@code ClusterRepositoryContract}'s tricky-characters test, on a real server.
 */
class CopyLineTest {

    static Stream<Arguments> values() {
        return Stream.of(
                // the value                          its text in the line
                arguments("plain",                     "plain"),
                arguments("",                          ""),
                arguments("say \"hi\", {x}, 'q', NULL", "say \"hi\", {x}, 'q', NULL"),
                arguments("back\\slash",               "back\\\\slash"),
                arguments("a\tb",                      "a\\tb"),
                arguments("line\nbreak",               "line\\nbreak"),
                arguments("cr\rhere",                  "cr\\rhere"),
                arguments("\\N",                       "\\\\N"),
                // COPY's end-of-data marker is a line of \. alone: a value's line break and backslash are escaped, so
                // no value can end the copy early
                arguments("\n\\.\n",                   "\\n\\\\.\\n"),
                arguments("\\",                        "\\\\"),
                // escapes PostgreSQL reads only after a backslash: raw, they are the characters themselves
                arguments("vt\u000bff\fbs\b",          "vt\u000bff\fbs\b"),
                arguments("ünïcödé ☃",                 "ünïcödé ☃"));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("values")
    void a_value_escapes_only_the_backslash_the_tab_the_newline_and_the_carriage_return(String value, String text) {
        StringBuilder line = new StringBuilder();

        Db.copyLine(line, List.of(value));

        assertThat(line.toString()).isEqualTo(text + "\n");
    }

    @Test
    void values_are_apart_by_tabs_a_null_is_backslash_n_and_an_instant_is_its_iso_text() {
        StringBuilder line = new StringBuilder();

        Db.copyLine(line, Arrays.asList("a", null, 7L, true, Instant.parse("2026-12-02T10:00:00.123456Z"), ""));

        assertThat(line.toString()).isEqualTo("a\t\\N\t7\ttrue\t2026-12-02T10:00:00.123456Z\t\n");
    }
}
