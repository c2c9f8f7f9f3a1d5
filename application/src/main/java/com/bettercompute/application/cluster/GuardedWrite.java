package com.bettercompute.application.cluster;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A write of a cluster row guarded by its {@code version}: each attempt reads the row afresh, decides and
 * writes only if nobody wrote since; a lost race tries again. After {@value #ATTEMPTS} lost races the
 * call is {@code CONFLICT} with {@code details.reason: "concurrent-change"}.
 */
public final class GuardedWrite {
    public static final int ATTEMPTS = 8;

    private GuardedWrite() {}

    /** Runs {@code attempt} until it gives a result; it gives none when another write came first. */
    public static <T> T retry(Supplier<Optional<T>> attempt) {
        for (int i = 0; i < ATTEMPTS; i++) {
            Optional<T> result = attempt.get();
            if (result.isPresent()) {
                return result.get();
            }
        }
        throw new DomainException(ErrorCode.CONFLICT, "The cluster is changing under concurrent calls; try again.",
                Map.of("reason", "concurrent-change"));
    }
}
