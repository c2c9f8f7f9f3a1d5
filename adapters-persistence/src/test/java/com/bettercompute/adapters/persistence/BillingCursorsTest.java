package com.bettercompute.adapters.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The billing cursors of many grants go to text rows of bounded size and come back exactly. */
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
}
