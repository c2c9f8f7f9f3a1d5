package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The billing cursors of node grants as the few text rows of {@code market_billing} (V35). Billing moves
 * every ready grant at every tick (how far it is billed, its open ledger entry, the carry below one
 * micro-dollar) and nothing else of it: the tick writes those cursors as one text of all grants whose
 * billing alone moved since their row was written, in chunks, instead of one row update per grant. A
 * grant's row holds its cursor as of its last full write; a cursor here, when there is one, is newer.
 *
 * <p>One line per grant: {@code id market_rate locked_in_force billed_until entry_from entry_rate
 * entry_locked entry_accrued carry}, instants as epoch nanoseconds ({@code -} for none), booleans 0/1.
 */
final class BillingCursors {
    /** Characters per row, well below H2's longest VARCHAR. */
    static final int CHUNK = 256 * 1024;

    /** The billing columns of a grant (the rest of its state is its row's). */
    record Cursor(long marketRate, boolean lockedInForce, Instant billedUntil, Instant entryFrom, long entryRate,
                  boolean entryLocked, long entryAccrued, long carry) {
        static Cursor of(GrantState g) {
            return new Cursor(g.marketRate(), g.lockedInForce(), g.billedUntil(), g.entryFrom(), g.entryRate(),
                    g.entryLocked(), g.entryAccrued(), g.carry());
        }

        GrantState applyTo(GrantState g) {
            return new GrantState(g.id(), g.nodeId(), g.pool(), g.clusterId(), g.gpus(), g.lockedRate(), g.grantedAt(),
                    g.readyAt(), g.holdUntil(), g.protectedUntil(), g.replacement(), g.requestId(), g.idleSince(),
                    marketRate, lockedInForce, billedUntil, g.endsAt(), entryFrom, entryRate, entryLocked, entryAccrued,
                    carry);
        }
    }

    private BillingCursors() {
    }

    /** The cursors of {@code grants} as rows of at most {@link #CHUNK} characters, each of whole lines. */
    static List<String> encode(Iterable<GrantState> grants) {
        List<String> chunks = new ArrayList<>();
        StringBuilder chunk = new StringBuilder();
        StringBuilder line = new StringBuilder(128);
        for (GrantState g : grants) {
            line.setLength(0);
            line.append(g.id()).append(' ').append(g.marketRate()).append(' ').append(g.lockedInForce() ? 1 : 0)
                    .append(' ');
            nanos(line, g.billedUntil()).append(' ');
            nanos(line, g.entryFrom()).append(' ').append(g.entryRate()).append(' ').append(g.entryLocked() ? 1 : 0)
                    .append(' ').append(g.entryAccrued()).append(' ').append(g.carry()).append('\n');
            if (chunk.length() + line.length() > CHUNK) {
                chunks.add(chunk.toString());
                chunk.setLength(0);
            }
            chunk.append(line);
        }
        if (chunk.length() > 0) {
            chunks.add(chunk.toString());
        }
        return chunks;
    }

    /** The cursors the rows hold, by grant id. */
    static Map<String, Cursor> decode(List<String> chunks) {
        Map<String, Cursor> cursors = new HashMap<>();
        for (String chunk : chunks) {
            for (String line : chunk.split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] f = line.split(" ");
                cursors.put(f[0], new Cursor(Long.parseLong(f[1]), f[2].equals("1"), instant(f[3]), instant(f[4]),
                        Long.parseLong(f[5]), f[6].equals("1"), Long.parseLong(f[7]), Long.parseLong(f[8])));
            }
        }
        return cursors;
    }

    private static StringBuilder nanos(StringBuilder out, Instant at) {
        return at == null ? out.append('-')
                : out.append(Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000_000L), at.getNano()));
    }

    private static Instant instant(String nanos) {
        if (nanos.equals("-")) {
            return null;
        }
        long n = Long.parseLong(nanos);
        return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }
}
