package com.bettercompute.adapters.persistence;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Read by migration V53 alone ({@link MarketBillingFold}), which folds this text back into the rows: until then,
 * the billing cursors of node grants and the charged totals of tenants as the few text rows of
 * {@code market_billing} (V35). Billing moves every ready grant at every tick (how far it is billed, its open
 * ledger entry, the carry below one micro-dollar) and the charged total of every tenant with one, and nothing
 * else of them: the tick writes those values as one text of all grants and tenants whose billing alone moved
 * since their row was written, in chunks, instead of one row update each. A row holds its values as of its
 * last full write; a value here, when there is one, is newer.
 *
 * <p>Each chunk starts with the line {@code #2}. A grant's line is {@code id market_rate locked_in_force
 * billed_until entry_from entry_rate entry_locked entry_accrued carry}, instants as epoch nanoseconds
 * ({@code -} for none), booleans 0/1; a field left empty is the one of the grant line before it in the chunk.
 * Most grants billed up to the same tick and many share their entry's start and rate, so the text PostgreSQL
 * stores (and compresses) each tick is about half of what writing every field would be. A tenant's line is
 * {@code =id charged}, the id with {@code %}, space and line breaks escaped. Rows without the {@code #2} line
 * are the first format (every field of grant lines, no tenant lines), still read.
 */
final class BillingCursors {
    private static final String FORMAT = "#2\n";
    private static final int FIELDS = 8;

    /** The billing columns of a grant (the rest of its state is its row's). */
    record Cursor(long marketRate, boolean lockedInForce, Instant billedUntil, Instant entryFrom, long entryRate,
                  boolean entryLocked, long entryAccrued, long carry) {
    }

    /** What the rows hold: grant cursors by grant id, charged totals (micro-dollars) by tenant id. */
    record Read(Map<String, Cursor> grants, Map<String, Long> tenants) {
    }

    private BillingCursors() {
    }

    /** The grant cursors and tenant totals the rows hold. */
    static Read read(List<String> chunks) {
        Map<String, Cursor> cursors = new HashMap<>();
        Map<String, Long> tenants = new HashMap<>();
        for (String chunk : chunks) {
            boolean relative = chunk.startsWith(FORMAT);
            String[] previous = new String[FIELDS];
            for (String line : (relative ? chunk.substring(FORMAT.length()) : chunk).split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                if (relative && line.charAt(0) == '=') {
                    int space = line.lastIndexOf(' ');
                    tenants.put(unescape(line.substring(1, space)), Long.parseLong(line.substring(space + 1)));
                    continue;
                }
                String[] f = line.split(" ", -1);
                if (relative) {
                    for (int i = 0; i < FIELDS; i++) {
                        if (f[i + 1].isEmpty()) {
                            f[i + 1] = previous[i];
                        } else {
                            previous[i] = f[i + 1];
                        }
                    }
                }
                cursors.put(f[0], new Cursor(Long.parseLong(f[1]), f[2].equals("1"), instant(f[3]), instant(f[4]),
                        Long.parseLong(f[5]), f[6].equals("1"), Long.parseLong(f[7]), Long.parseLong(f[8])));
            }
        }
        return new Read(cursors, tenants);
    }

    private static String unescape(String id) {
        return id.replace("%0D", "\r").replace("%0A", "\n").replace("%20", " ").replace("%25", "%");
    }

    private static Instant instant(String nanos) {
        if (nanos.equals("-")) {
            return null;
        }
        long n = Long.parseLong(nanos);
        return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }
}
