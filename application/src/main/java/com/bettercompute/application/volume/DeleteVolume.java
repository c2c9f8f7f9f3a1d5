package com.bettercompute.application.volume;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.GuardedWrite;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeDeletePolicy;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * Deletes a shared volume at a person's request ({@link VolumeDeletePolicy}): a console session only, the storage name
 * typed back exactly, never an attached volume. Accepted, the volume goes {@code deleting}, its billing stops at once
 * and {@code kubernetes.volume.deleting} is published; the volume loop destroys it at the provider. Needs delete on the
 * tenant. A call made with an API token is refused before anything is read.
 */
public final class DeleteVolume {
    private final VolumeRepository volumes;
    private final ReconcileVolume reconcile;
    private final Authorizer authorizer;
    private final Clock clock;

    public DeleteVolume(VolumeRepository volumes, ReconcileVolume reconcile, Authorizer authorizer, Clock clock) {
        this.volumes = volumes;
        this.reconcile = reconcile;
        this.authorizer = authorizer;
        this.clock = clock;
    }

    /** {@code ACCESS_DENIED} ({@code session-required}) unless the caller is a person in a console session. */
    public static void requireSession(Caller caller) {
        refuseIfRefused(VolumeDeletePolicy.caller(caller.viaSession()));
    }

    /** @param storageName the volume's storage name; {@code typed}: what the person typed back to confirm */
    public SharedVolume delete(Caller caller, String org, String storageName, String typed) {
        requireSession(caller);
        authorizer.require(caller, Action.DELETE, Resource.tenant(org));
        return GuardedWrite.retry(() -> {
            SharedVolume v = volumes.forTenant(org).stream().filter(found -> found.storageName().equals(storageName)).findFirst()
                    .orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "No volume " + storageName + " in organization " + org + ".",
                            Map.of("volume", String.valueOf(storageName))));
            VolumeDeletePolicy.Decision d = VolumeDeletePolicy.decide(v, caller.viaSession(), typed);
            refuseIfRefused(d);
            if (d instanceof VolumeDeletePolicy.Decision.AlreadyAccepted) {
                return Optional.of(v);
            }
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            return reconcile.acceptDelete(v, now) ? volumes.find(v.id()) : Optional.<SharedVolume>empty();
        });
    }

    private static void refuseIfRefused(VolumeDeletePolicy.Decision d) {
        if (d instanceof VolumeDeletePolicy.Decision.Refuse r) {
            throw new DomainException(r.code(), r.message(), r.details());
        }
    }
}
