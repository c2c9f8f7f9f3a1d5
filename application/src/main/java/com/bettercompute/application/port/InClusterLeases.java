package com.bettercompute.application.port;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Which replica carries the market into which tenant cluster. Every replica that does says so at each pass
 * ({@link #replicas}); each cluster is worked by the one replica holding its lease ({@link #claim}), renewed
 * while it works it. A replica that dies stops renewing: its place among the replicas and its leases run
 * out at the time it last gave, and the others take its clusters then.
 *
 * <p>Times are the callers' own clocks: a replica's {@code now} decides what has run out, so the replicas'
 * clocks must agree to well within a lease (as the reconciler's leases need).
 */
public interface InClusterLeases {
    /**
     * Records that {@code owner} carries the market into clusters until {@code until}, and returns every
     * owner whose record still runs at {@code now}, {@code owner} included, in their natural order. Records
     * that ran out may be forgotten. Idempotent.
     *
     * @throws com.bettercompute.domain.DomainException INTERNAL when the store failed (nothing is taken)
     */
    List<String> replicas(String owner, Instant now, Instant until);

    /**
     * Takes or renews for {@code owner} until {@code until} the lease of each of {@code clusterIds} that is
     * free, ran out at {@code now}, or is already {@code owner}'s. Each cluster's lease is one conditional
     * write, so two owners never hold it at once. Idempotent for the same arguments.
     *
     * @return the clusters of {@code clusterIds} that {@code owner} holds now (all the others are held by
     *         another owner whose lease still runs)
     * @throws com.bettercompute.domain.DomainException INTERNAL when the store failed (the caller holds
     *         nothing it did not hold before, and should work nothing until a claim succeeds again)
     */
    Set<String> claim(Collection<String> clusterIds, String owner, Instant now, Instant until);

    /**
     * Gives back the leases of {@code clusterIds} that {@code owner} holds; the others are left alone.
     * Idempotent.
     *
     * @throws com.bettercompute.domain.DomainException INTERNAL when the store failed (the leases run out
     *         at their time instead)
     */
    void release(Collection<String> clusterIds, String owner);

    /**
     * Gives back every lease {@code owner} holds and removes it from the replicas: a replica that stops, so
     * the others take its clusters at their next pass rather than when the leases run out. Idempotent.
     *
     * @throws com.bettercompute.domain.DomainException INTERNAL when the store failed
     */
    void leave(String owner);
}
