package com.bettercompute.domain.input;

import com.bettercompute.domain.DomainException;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InputTest {
    @Test
    void a_body_that_is_not_an_object_is_one_problem() {
        for (Object body : new Object[]{List.of(), "x", 1, true, null}) {
            Input in = Input.of(body);
            assertThat(in.problems()).containsExactly(new FieldProblem("", "the body must be a JSON object"));
        }
    }

    @Test
    void integers_are_json_integers_in_range() {
        Input in = Input.of(Map.of("a", 5, "b", new BigDecimal("5.0"), "c", new BigInteger("99999999999999999999"), "d", "5", "e", 7L));
        assertThat(in.integer("a", true, 0, 10)).isEqualTo(5);
        assertThat(in.integer("b", true, 0, 10)).isNull();
        assertThat(in.integer("c", true, 0, 10)).isNull();
        assertThat(in.integer("d", true, 0, 10)).isNull();
        assertThat(in.integer("e", true, 0, 6)).isNull();
        assertThat(in.problems()).extracting(FieldProblem::field).containsExactly("b", "c", "d", "e");
    }

    @Test
    void nested_problems_carry_their_path_and_unknown_fields_are_named() {
        Input in = Input.of(Map.of("pools", List.of(Map.of("n", "ok"), Map.of("n", 3, "x", 1))));
        List<Input> pools = in.objects("pools", 5);
        for (Input p : pools) {
            p.string("n", true, 10, Pattern.compile("[a-z]+"));
            p.finish();
        }
        in.finish();
        assertThat(in.problems()).extracting(FieldProblem::field).containsExactly("pools[1].n", "pools[1].x");
        assertThatThrownBy(in::throwIfInvalid).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.details()).containsKey("fields"));
    }

    @Test
    void nulls_inside_lists_are_wrong_types_and_a_null_field_is_absent() {
        Input in = Input.of(new java.util.HashMap<>(Map.of("zones", Arrays.asList("a", null))));
        assertThat(in.strings("zones", 5, 10, null)).isNull();
        assertThat(in.string("missing", false, 10, null)).isNull();
        assertThat(in.problems()).extracting(FieldProblem::field).containsExactly("zones[1]");
    }

    @Test
    void a_long_string_is_refused_without_echoing_it() {
        String huge = "s".repeat(100_000);
        Input in = Input.of(Map.of("name", huge));
        in.string("name", true, 40, null);
        assertThat(in.problems()).singleElement().satisfies(p -> assertThat(p.problem()).doesNotContain(huge.substring(0, 50)));
    }
}
