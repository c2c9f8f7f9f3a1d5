package com.bettercompute.application.volume;

import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.SharedVolumeProvider;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeEvent;

import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * How a volume pass writes: a row guarded by its revision with its events, in one transaction; and a provider call with
 * its intent saved first, so a crash during the call leaves a row that says what was being asked, and the next pass
 * repeats the (idempotent) call or asks how its operation ended.
 */
final class VolumeWrites {
    private final Transactions tx;
    private final VolumeRepository volumes;
    private final EventOutbox outbox;

    VolumeWrites(Transactions tx, VolumeRepository volumes, EventOutbox outbox) {
        this.tx = tx;
        this.volumes = volumes;
        this.outbox = outbox;
    }

    /** What a provider call left: the row saved after it, or null when another writer came first. */
    record Called(SharedVolume saved, ProviderException refused) {}

    boolean save(SharedVolume before, SharedVolume after, List<VolumeEvent> events) {
        return tx.inTransaction(() -> {
            if (!volumes.update(after, before.version())) {
                return false;
            }
            events.forEach(e -> outbox.append(e.stored()));
            return true;
        });
    }

    /**
     * Saves the intent {@code label} on {@code v} (looked at again at {@code next}), makes the call, and saves the
     * operation it started; on a refusal nothing more is saved here and the refusal is returned for the caller to decide.
     */
    Called call(SharedVolume v, String label, Instant next, Function<SharedVolumeProvider, String> call, SharedVolumeProvider provider) {
        return call(v, v, label, next, call, provider);
    }

    /** As {@link #call(SharedVolume, String, Instant, Function, SharedVolumeProvider)}, the intent saved on {@code base} over {@code stored}. */
    Called call(SharedVolume stored, SharedVolume base, String label, Instant next, Function<SharedVolumeProvider, String> call,
                SharedVolumeProvider provider) {
        SharedVolume intent = base.withProgress(base.progress().intending(label).next(next));
        if (!save(stored, intent, List.of())) {
            return new Called(null, null);
        }
        String operation;
        try {
            operation = call.apply(provider);
        } catch (ProviderException e) {
            return new Called(intent, e);
        }
        SharedVolume started = intent.withProgress(intent.progress().started(operation));
        return new Called(save(intent, started, List.of()) ? started : null, null);
    }

    /** Passing trouble worth trying again soon, quietly; anything else is a refusal the person must see. */
    static boolean passing(ProviderException e) {
        return e.kind() == ProviderException.Kind.UNAVAILABLE || e.kind() == ProviderException.Kind.FAILED_PRECONDITION
                || e.kind() == ProviderException.Kind.INTERNAL;
    }
}
