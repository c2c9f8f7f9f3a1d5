package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.client.utils.Utils;

import java.util.UUID;

/**
 * The uids the CRUD mock gives what it creates come from {@link Utils#generateId()}: a counter of this process
 * ({@code 00000000-0000-0000-0000-000000000001}, then {@code …002}) that starts again at every start. kube-apiserver never
 * gives a uid twice, and what the platform makes at the provider is named after a Service's uid; so the saved clusters
 * keep a mark above every uid given out before their save, and a restarted simulator moves the counter past it before
 * anything is created.
 */
final class Uids {
    private Uids() {
    }

    /** A mark above every uid given out so far in this process (it takes one itself, which nothing then holds). */
    static long above() {
        return Utils.generateId().getLeastSignificantBits();
    }

    /** Moves the counter so that every uid given out from now on is at least {@code mark}. */
    static void skipBelow(long mark) {
        while (Utils.generateId().getLeastSignificantBits() < mark - 1) {
            // one call per uid skipped: a saved cluster's mark is at most some hundred thousand
        }
    }

    /** The counter's value in a uid the CRUD mock gave; 0 for any other uid (a random one, or none). */
    static long counted(String uid) {
        if (uid == null) {
            return 0;
        }
        try {
            UUID id = UUID.fromString(uid);
            return id.getMostSignificantBits() == 0 ? id.getLeastSignificantBits() : 0;
        } catch (IllegalArgumentException e) {
            return 0;
        }
    }
}
