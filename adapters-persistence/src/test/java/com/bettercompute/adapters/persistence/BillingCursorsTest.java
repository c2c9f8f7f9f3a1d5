package com.bettercompute.adapters.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The billing text the tick wrote until migration V53 folded it into the rows, read back exactly in both of its
 * formats (V53 reads it once; nothing writes it any more).
 */
class BillingCursorsTest {
    private static final Instant TICK = Instant.parse("2026-12-01T00:00:05Z");

    @Test
    void a_field_left_out_is_the_one_of_the_line_before_it_and_tenant_lines_come_back_by_id() {
        String text = "#2\ng1 1 0 1796083205000000000 1796083205000000000 1000000 1 10 0\ng2       20 \ng3    -    \n"
                + "=acme 17\n=with%20space 3\n=100%25%0Anew%20line 9223372036854775807\n";

        BillingCursors.Read read = BillingCursors.read(List.of(text));

        assertThat(read.grants()).containsOnly(
                Map.entry("g1", new BillingCursors.Cursor(1, false, TICK, TICK, 1_000_000, true, 10, 0)),
                Map.entry("g2", new BillingCursors.Cursor(1, false, TICK, TICK, 1_000_000, true, 20, 0)),
                Map.entry("g3", new BillingCursors.Cursor(1, false, TICK, null, 1_000_000, true, 20, 0)));
        assertThat(read.tenants()).containsOnly(Map.entry("acme", 17L), Map.entry("with space", 3L),
                Map.entry("100%\nnew line", Long.MAX_VALUE));
    }

    @Test
    void each_chunk_starts_again_from_whole_lines() {
        String first = "#2\ng1 1 0 1796083205000000000 - 7 0 10 0\n";
        String second = "#2\ng2 2 1 1796083205000000000 - 8 1 11 1\ng3     9   \n";

        BillingCursors.Read read = BillingCursors.read(List.of(first, second));

        assertThat(read.grants().get("g3")).isEqualTo(new BillingCursors.Cursor(2, true, TICK, null, 9, true, 11, 1));
        assertThat(read.grants()).hasSize(3);
    }

    @Test
    void rows_of_the_first_format_every_field_on_every_line_are_still_read() {
        String first = "g1 2150000 1 1796083205000000000 - 2150000 0 358333 33\ng2 1 0 - 5 7 1 8 9\n";

        Map<String, BillingCursors.Cursor> read = BillingCursors.read(List.of(first)).grants();

        assertThat(read.get("g1")).isEqualTo(new BillingCursors.Cursor(2_150_000, true, TICK, null, 2_150_000, false,
                358_333, 33));
        assertThat(read.get("g2")).isEqualTo(new BillingCursors.Cursor(1, false, null, Instant.ofEpochSecond(0, 5), 7,
                true, 8, 9));
    }
}
