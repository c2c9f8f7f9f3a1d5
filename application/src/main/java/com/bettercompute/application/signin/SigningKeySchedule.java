package com.bettercompute.application.signin;

import com.bettercompute.application.port.SigningKeyRepository.SigningKey;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * When each ID token signing key is published, signs and is retired: a pure rule every replica applies to
 * the same kept keys and its own clock, so all of them sign with the same key and publish the same set.
 *
 * <ul>
 *   <li>A key signs from its {@code signsFrom} until a newer key's {@code signsFrom}: the newest key whose
 *       {@code signsFrom} has come signs.</li>
 *   <li>A new key is due {@code publishAhead} before the signing key has signed for {@code signFor}; it is
 *       published at once and signs {@code publishAhead} later, so a verifier that cached the keys before it
 *       was made fetches them again in time (the JWKS is cacheable for less than that). The very first key
 *       signs at once: nothing was signed before it.</li>
 *   <li>A key that no longer signs stays published for {@code keepAfter} (the tokens' lifetime and a margin
 *       for clocks that disagree), until every token it signed has expired; then it is retired (removed).</li>
 * </ul>
 */
public record SigningKeySchedule(Duration signFor, Duration publishAhead, Duration keepAfter) {
    public SigningKeySchedule {
        Objects.requireNonNull(signFor, "signFor");
        Objects.requireNonNull(publishAhead, "publishAhead");
        Objects.requireNonNull(keepAfter, "keepAfter");
        if (publishAhead.isNegative() || signFor.compareTo(publishAhead) <= 0) {
            throw new IllegalArgumentException("a key must sign for longer than it is published ahead");
        }
    }

    /** Where one kept key stands at an instant. */
    enum Stage {
        /** Published, not signing yet. */
        PUBLISHED_AHEAD,
        /** Signs the tokens issued now (and is published). */
        SIGNING,
        /** No longer signs; published while a token it signed may still be alive. */
        KEPT_FOR_ITS_TOKENS,
        /** Every token it signed has expired: no longer published, to be removed. */
        RETIRED
    }

    /**
     * What the kept keys make of an instant.
     *
     * @param signing   the key that signs now; empty when none does yet (no key, or only keys published ahead)
     * @param published the keys to publish, oldest generation first
     * @param retired   the keys to remove, oldest generation first
     * @param nextSignsFrom when a new key is due now: when it starts signing; empty when none is due
     */
    public record Plan(Optional<SigningKey> signing, List<SigningKey> published, List<SigningKey> retired,
                       Optional<Instant> nextSignsFrom) {}

    /** The plan of {@code keys} (any order) at {@code now}. */
    public Plan plan(List<SigningKey> keys, Instant now) {
        List<SigningKey> sorted = new ArrayList<>(keys);
        sorted.sort(Comparator.comparingLong(SigningKey::generation));
        SigningKey signing = null;
        List<SigningKey> published = new ArrayList<>();
        List<SigningKey> retired = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            SigningKey key = sorted.get(i);
            Instant stoppedSigning = stoppedSigning(sorted, i, now);
            switch (stage(key, stoppedSigning, now)) {
                case SIGNING -> {
                    signing = key;
                    published.add(key);
                }
                case PUBLISHED_AHEAD, KEPT_FOR_ITS_TOKENS -> published.add(key);
                case RETIRED -> retired.add(key);
            }
        }
        return new Plan(Optional.ofNullable(signing), List.copyOf(published), List.copyOf(retired), nextSignsFrom(sorted, now));
    }

    private Stage stage(SigningKey key, Instant stoppedSigning, Instant now) {
        if (now.isBefore(key.signsFrom())) {
            return Stage.PUBLISHED_AHEAD;
        }
        if (stoppedSigning == null) {
            return Stage.SIGNING;
        }
        return now.isBefore(stoppedSigning.plus(keepAfter)) ? Stage.KEPT_FOR_ITS_TOKENS : Stage.RETIRED;
    }

    /** When a newer key took over from the key at {@code index}, or null while none has (as of {@code now}). */
    private static Instant stoppedSigning(List<SigningKey> sorted, int index, Instant now) {
        Instant earliest = null;
        for (int j = index + 1; j < sorted.size(); j++) {
            Instant from = sorted.get(j).signsFrom();
            if (!now.isBefore(from) && (earliest == null || from.isBefore(earliest))) {
                earliest = from;
            }
        }
        return earliest;
    }

    private Optional<Instant> nextSignsFrom(List<SigningKey> sorted, Instant now) {
        if (sorted.isEmpty()) {
            return Optional.of(now);
        }
        SigningKey newest = sorted.get(sorted.size() - 1);
        // a newest key still published ahead is the next key already; a signing one is replaced on time
        boolean due = !now.isBefore(newest.signsFrom().plus(signFor).minus(publishAhead));
        return due ? Optional.of(now.plus(publishAhead)) : Optional.empty();
    }
}
