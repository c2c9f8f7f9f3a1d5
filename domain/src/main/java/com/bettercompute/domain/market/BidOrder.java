package com.bettercompute.domain.market;

/**
 * The order of bidders in a clearing, packed into one {@code long} so that a pool's bidders sort as
 * primitives: limit highest first; on equal limits running before waiting (no churn for equal
 * prices); then older first. The low 24 bits carry the bidder's age rank, which is also its index.
 */
public final class BidOrder {
    static final int INDEX_BITS = 24;
    static final int MAX_INDEX = (1 << INDEX_BITS) - 1;
    private static final long LIMIT_MASK = (1L << 38) - 1;

    private BidOrder() {
    }

    /** The sort key; ascending order of keys is the market's order of bidders. */
    public static long key(long limitMicros, boolean running, int ageRank) {
        if (limitMicros < 0 || limitMicros > LIMIT_MASK || ageRank < 0 || ageRank > MAX_INDEX) {
            throw new IllegalArgumentException("bid out of range: " + limitMicros + " " + ageRank);
        }
        return ((LIMIT_MASK - limitMicros) << (INDEX_BITS + 1)) | ((running ? 0L : 1L) << INDEX_BITS) | ageRank;
    }

    /** The last key, in market order, of a limit of at least {@code limitMicros}: every later key's limit is lower. */
    static long lastKeyAtOrAbove(long limitMicros) {
        return limitMicros <= 0 ? Long.MAX_VALUE : key(limitMicros, false, MAX_INDEX);
    }

    public static long limit(long key) {
        return LIMIT_MASK - (key >>> (INDEX_BITS + 1));
    }

    public static boolean running(long key) {
        return ((key >>> INDEX_BITS) & 1L) == 0;
    }

    public static int index(long key) {
        return (int) (key & MAX_INDEX);
    }
}
