package com.bettercompute.domain.input;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class InputTest {
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"plain, true", "'', true", "a\u0000b, false", "\uD800, false", "x\uDC00y, false", "\uDE80\uD83D, false", "\uD83D\uDE80, true"})
    void text_is_storable_without_nul_or_unpaired_surrogates(String text, boolean storable) {
        assertThat(Input.isText(text)).isEqualTo(storable);
    }

    @Test
    void a_long_key_is_shown_cut_short_with_its_length() {
        assertThat(Input.shown("k".repeat(100))).isEqualTo("k".repeat(100));
        assertThat(Input.shown("k".repeat(40_000))).isEqualTo("k".repeat(100) + "…(40000 characters)");
        // never cut between the halves of a pair
        assertThat(Input.shown("k".repeat(99) + "\uD83D\uDE80" + "k".repeat(10))).isEqualTo("k".repeat(99) + "…(111 characters)");
    }

    @Test
    void invalid_names_every_field_and_the_first_in_the_message() {
        DomainException e = Input.invalid(List.of(new FieldProblem("name", "is required"), new FieldProblem("mode", "must be one of a, b")));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
        assertThat(e.getMessage()).isEqualTo("Invalid input: name is required (and 1 more).");
        assertThat(e.details()).isEqualTo(Map.of("fields", List.of(
                Map.of("field", "name", "problem", "is required"), Map.of("field", "mode", "problem", "must be one of a, b"))));
        assertThat(Input.invalid("", "the body must be a JSON object").getMessage()).isEqualTo("Invalid input: the body must be a JSON object.");
    }
}
