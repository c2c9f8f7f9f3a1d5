package com.bettercompute.domain.market;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The tick sorts a pool's bidders only as far as its walk goes (from the pool's last price down):
 * whatever that price, the walk accepts exactly whom it accepts after a full sort.
 */
class ClearingWalkPropertiesTest {
    record Bidder(int limitStep, boolean running, int nodes, int slot) {
    }

    @Provide
    Arbitrary<List<Bidder>> bidders() {
        return Combinators.combine(Arbitraries.integers().between(0, 8), Arbitraries.of(true, false),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(-1, 2))
                .as(Bidder::new).list().ofMaxSize(60);
    }

    @Property(tries = 500)
    void aWalkOverBiddersSortedFromTheLastPriceDownDecidesAsAfterAFullSort(
            @ForAll("bidders") List<Bidder> bidders,
            @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 40) int free,
            @ForAll @net.jqwik.api.constraints.IntRange(min = -1, max = 9) int lastPriceStep,
            @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 3) int idlePerSlot) {
        int n = bidders.size();
        long[] keys = new long[n];
        int[] nodes = new int[n];
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
            Bidder b = bidders.get(i);
            keys[i] = BidOrder.key(b.limitStep() * 500_000L, b.running(), i);
            nodes[i] = b.nodes();
            slots[i] = b.slot();
        }
        int[] idle = {idlePerSlot, 0, idlePerSlot};

        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        boolean[] acceptedAfterFullSort = new boolean[n];
        long lowestAfterFullSort = ClearingPolicy.walk(sorted, n, nodes, slots, idle.clone(), free,
                acceptedAfterFullSort);

        long aheadUpTo = lastPriceStep < 0 ? Long.MAX_VALUE : BidOrder.lastKeyAtOrAbove(lastPriceStep * 500_000L);
        long[] partly = keys.clone();
        boolean[] accepted = new boolean[n];
        long lowest = ClearingPolicy.sortAndWalk(partly, n, aheadUpTo, nodes, slots, idle.clone(), free, accepted);

        assertThat(accepted).isEqualTo(acceptedAfterFullSort);
        assertThat(lowest).isEqualTo(lowestAfterFullSort);
        assertThat(Arrays.stream(partly).sorted().toArray()).as("the same keys, reordered").isEqualTo(sorted);
        int firstRejectedAfterTheLastAccepted = lastAccepted(partly, accepted) + 1;
        assertThat(Arrays.copyOf(partly, firstRejectedAfterTheLastAccepted))
                .as("sorted down to the last accepted").isEqualTo(Arrays.copyOf(sorted, firstRejectedAfterTheLastAccepted));
    }

    @Property(tries = 200)
    void theLastKeyAtOrAbovePriceSeparatesLimitsAtOrAboveThePriceFromTheRest(
            @ForAll @net.jqwik.api.constraints.LongRange(min = 0, max = 100_000_000_000L) long limit,
            @ForAll @net.jqwik.api.constraints.LongRange(min = 0, max = 100_000_000_000L) long price,
            @ForAll boolean running,
            @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = BidOrder.MAX_INDEX) int rank) {
        assertThat(BidOrder.key(limit, running, rank) <= BidOrder.lastKeyAtOrAbove(price)).isEqualTo(limit >= price);
    }

    private static int lastAccepted(long[] keys, boolean[] accepted) {
        int last = -1;
        for (int k = 0; k < keys.length; k++) {
            if (accepted[BidOrder.index(keys[k])]) {
                last = k;
            }
        }
        return last;
    }
}
