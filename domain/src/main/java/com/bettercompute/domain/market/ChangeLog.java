package com.bettercompute.domain.market;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * What changed since the changes were last cleared, by identity, for {@link MarketChanges}: what a persistence
 * adapter writes instead of comparing whole snapshots. Only a market restored from a snapshot records: one
 * built call by call (a simulation, the benchmark) is never persisted and keeps no record.
 */
final class ChangeLog {
    /** The requests filed, changed or gone. */
    final Set<MarketRequest> requests = identitySet();
    /** The grants made, changed (other than by billing) or dropped. */
    final Set<NodeGrant> grants = identitySet();
    /**
     * The grants whose billing cursor moved in a way a restore cannot work out (their entry opened, closed for
     * good, or was cut short by the balance; {@link Billing}): every tick bills every ready grant, and only
     * these need saving.
     */
    final Set<NodeGrant> billed = identitySet();
    /** The nodes added, changed or removed. */
    final Set<Node> nodes = identitySet();
    private boolean recording;

    private static <T> Set<T> identitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }

    /** From here on every change is recorded (a market restored from a snapshot). */
    void record() {
        recording = true;
    }

    boolean recording() {
        return recording;
    }

    void touch(MarketRequest r) {
        if (recording) {
            requests.add(r);
        }
    }

    void touch(NodeGrant g) {
        if (recording) {
            grants.add(g);
        }
    }

    void billed(NodeGrant g) {
        if (recording) {
            billed.add(g);
        }
    }

    void touch(Node n) {
        if (recording) {
            nodes.add(n);
        }
    }

    /** The changes are stored: record from here on. */
    void clear() {
        requests.clear();
        grants.clear();
        billed.clear();
        nodes.clear();
    }
}
