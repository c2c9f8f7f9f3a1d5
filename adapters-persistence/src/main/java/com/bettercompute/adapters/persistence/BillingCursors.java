package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.market.MarketSnapshot.GrantState;
import com.bettercompute.domain.market.MarketSnapshot.TenantState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The billing cursors of node grants and the charged totals of tenants as the few text rows of
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
    /** Characters per row, well below H2's longest VARCHAR. */
    static final int CHUNK = 256 * 1024;
    private static final String FORMAT = "#2\n";
    private static final int FIELDS = 8;

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

    /** What the rows hold: grant cursors by grant id, charged totals (micro-dollars) by tenant id. */
    record Read(Map<String, Cursor> grants, Map<String, Long> tenants) {
        TenantState applyTo(TenantState t) {
            Long charged = tenants.get(t.id());
            return charged == null ? t : new TenantState(t.id(), t.creditsMicros(), charged);
        }
    }

    private BillingCursors() {
    }

    /** The cursors of {@code grants} as rows of at most {@link #CHUNK} characters, each of whole lines. */
    static List<String> encode(Iterable<GrantState> grants) {
        return encode(grants, List.of());
    }

    /** The cursors of {@code grants} and the charged totals of {@code tenants} as rows of at most {@link #CHUNK}. */
    static List<String> encode(Iterable<GrantState> grants, Iterable<TenantState> tenants) {
        List<String> chunks = new ArrayList<>();
        StringBuilder chunk = new StringBuilder(FORMAT);
        StringBuilder line = new StringBuilder(160);
        long[] previous = new long[FIELDS];
        long[] fields = new long[FIELDS];
        boolean first = true;
        for (GrantState g : grants) {
            fields[0] = g.marketRate();
            fields[1] = g.lockedInForce() ? 1 : 0;
            fields[2] = nanos(g.billedUntil());
            fields[3] = nanos(g.entryFrom());
            fields[4] = g.entryRate();
            fields[5] = g.entryLocked() ? 1 : 0;
            fields[6] = g.entryAccrued();
            fields[7] = g.carry();
            line.setLength(0);
            line.append(g.id());
            for (int i = 0; i < FIELDS; i++) {
                line.append(' ');
                if (first || fields[i] != previous[i]) {
                    field(line, i, fields[i]);
                }
            }
            line.append('\n');
            if (chunk.length() + line.length() > CHUNK) {
                chunks.add(chunk.toString());
                chunk.setLength(0);
                chunk.append(FORMAT);
                // a chunk's first line stands alone: written again whole
                line.setLength(0);
                line.append(g.id());
                for (int i = 0; i < FIELDS; i++) {
                    field(line.append(' '), i, fields[i]);
                }
                line.append('\n');
            }
            chunk.append(line);
            System.arraycopy(fields, 0, previous, 0, FIELDS);
            first = false;
        }
        for (TenantState t : tenants) {
            line.setLength(0);
            line.append('=').append(escape(t.id())).append(' ').append(t.chargedMicros()).append('\n');
            if (chunk.length() + line.length() > CHUNK) {
                chunks.add(chunk.toString());
                chunk.setLength(0);
                chunk.append(FORMAT);
            }
            chunk.append(line);
        }
        if (chunk.length() > FORMAT.length()) {
            chunks.add(chunk.toString());
        }
        return chunks;
    }

    /** Field {@code i} of a grant's line: the instants (2 and 3) as epoch nanoseconds or {@code -}, the rest as numbers. */
    private static void field(StringBuilder out, int i, long value) {
        if ((i == 2 || i == 3) && value == NONE) {
            out.append('-');
        } else {
            out.append(value);
        }
    }

    /** The cursors the rows hold, by grant id. */
    static Map<String, Cursor> decode(List<String> chunks) {
        return read(chunks).grants();
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

    private static String escape(String id) {
        return id.replace("%", "%25").replace(" ", "%20").replace("\n", "%0A").replace("\r", "%0D");
    }

    private static String unescape(String id) {
        return id.replace("%0D", "\r").replace("%0A", "\n").replace("%20", " ").replace("%25", "%");
    }

    /** No instant: a value {@link #nanos} never gives (it would be about 292 years before 1970). */
    private static final long NONE = Long.MIN_VALUE;

    private static long nanos(Instant at) {
        return at == null ? NONE : Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000_000L), at.getNano());
    }

    private static Instant instant(String nanos) {
        if (nanos.equals("-")) {
            return null;
        }
        long n = Long.parseLong(nanos);
        return Instant.ofEpochSecond(Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
    }
}
