package com.bettercompute.adapters.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.MarketSnapshot.TenantState;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The billing cursors of many grants and the charged totals of tenants go to text rows of bounded size and come back exactly. */
class BillingCursorsTest {
    private static final PoolId POOL = PoolId.parse("eu-west/h100-8x");

    @Test
    void the_cursors_of_twenty_thousand_grants_split_into_bounded_rows_and_read_back_exactly() {
        SplittableRandom random = new SplittableRandom(14);
        List<GrantState> grants = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            Instant billed = random.nextInt(10) == 0 ? null
                    : Instant.ofEpochSecond(random.nextLong(-1_000_000_000L, 4_000_000_000L), random.nextInt(1_000_000_000));
            Instant entry = random.nextBoolean() ? null : Instant.ofEpochSecond(random.nextLong(0, 4_000_000_000L));
            grants.add(new GrantState("g" + i, "n" + i, POOL, "c", 8, Money.parse("2.00"), Instant.EPOCH, null, null,
                    null, false, null, null, random.nextLong(0, Long.MAX_VALUE), random.nextBoolean(), billed, null, entry,
                    random.nextLong(0, 10_000_000), random.nextBoolean(), random.nextLong(0, Long.MAX_VALUE),
                    random.nextLong(0, 3_600_000_000_000L)));
        }

        List<String> rows = BillingCursors.encode(grants);
        var read = BillingCursors.decode(rows);

        assertThat(rows).hasSizeGreaterThan(1).allSatisfy(r -> assertThat(r.length()).isLessThanOrEqualTo(BillingCursors.CHUNK));
        assertThat(read).hasSize(grants.size());
        for (GrantState g : grants) {
            GrantState row = new GrantState(g.id(), g.nodeId(), POOL, "c", 8, g.lockedRate(), g.grantedAt(), null, null,
                    null, false, null, null, 0, false, null, null, null, 0, false, 0, 0);
            assertThat(read.get(g.id()).applyTo(row)).as("the row's billing columns from the cursor").isEqualTo(g);
        }
    }
    @Test
    void tenants_charged_totals_come_back_by_id_whatever_their_id_holds() {
        List<TenantState> tenants = List.of(new TenantState("acme", 5, 17), new TenantState("with space", 0, 3),
                new TenantState("100%\nnew line", 1, Long.MAX_VALUE), new TenantState("=g1 2", 0, 0));
        GrantState grant = grant("g1", Instant.EPOCH, null, 7);

        BillingCursors.Read read = BillingCursors.read(BillingCursors.encode(List.of(grant), tenants));

        assertThat(read.tenants()).containsOnly(java.util.Map.entry("acme", 17L), java.util.Map.entry("with space", 3L),
                java.util.Map.entry("100%\nnew line", Long.MAX_VALUE), java.util.Map.entry("=g1 2", 0L));
        assertThat(read.grants()).containsOnlyKeys("g1");
        assertThat(read.applyTo(new TenantState("acme", 5, 0))).isEqualTo(new TenantState("acme", 5, 17));
        assertThat(read.applyTo(new TenantState("beta", 5, 9))).as("no line: the row's total").isEqualTo(
                new TenantState("beta", 5, 9));
    }

    @Test
    void a_field_like_the_line_before_it_is_left_out_and_read_back_from_that_line() {
        Instant tick = Instant.parse("2026-12-01T00:00:05Z");
        List<GrantState> grants = List.of(grant("g1", tick, tick, 10), grant("g2", tick, tick, 20),
                grant("g3", tick, null, 20));

        List<String> rows = BillingCursors.encode(grants, List.of());

        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).lines().toList()).as("the text: #2, then each line with its repeated fields left out")
                .containsExactly("#2", "g1 1 0 1796083205000000000 1796083205000000000 1000000 1 10 0",
                        "g2       20 ", "g3    -    ");
        var read = BillingCursors.decode(rows);
        for (GrantState g : grants) {
            assertThat(BillingCursors.Cursor.of(g)).isEqualTo(read.get(g.id()));
        }
    }

    @Test
    void rows_of_the_first_format_every_field_on_every_line_are_still_read() {
        String first = "g1 2150000 1 1796083205000000000 - 2150000 0 358333 33\ng2 1 0 - 5 7 1 8 9\n";

        var read = BillingCursors.decode(List.of(first));

        assertThat(read.get("g1")).isEqualTo(new BillingCursors.Cursor(2_150_000, true,
                Instant.parse("2026-12-01T00:00:05Z"), null, 2_150_000, false, 358_333, 33));
        assertThat(read.get("g2")).isEqualTo(new BillingCursors.Cursor(1, false, null, Instant.ofEpochSecond(0, 5), 7,
                true, 8, 9));
    }

    private static GrantState grant(String id, Instant billed, Instant entry, long accrued) {
        return new GrantState(id, "n-" + id, POOL, "c", 8, Money.parse("2.00"), Instant.EPOCH, null, null, null, false,
                null, null, 1, false, billed, null, entry, 1_000_000, true, accrued, 0);
    }
}
