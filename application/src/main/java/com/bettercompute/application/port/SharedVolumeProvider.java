package com.bettercompute.application.port;

import java.util.List;
import java.util.OptionalLong;

/**
 * The provider's file shares (Filestore on Google Cloud), one per shared volume, seen by the reconcilers.
 *
 * <p>As {@link ClusterProvider}: every mutating call starts an operation and returns at once with its name (null when it
 * started none), never waiting for it; {@link #observe} shows what is there and {@link #operation} how a call ended.
 * Every call is idempotent on the deterministic instance name, so a reconciler may repeat its last call after a crash:
 * creating an instance that exists and carries our volume id adopts it; deleting one that is gone succeeds.
 *
 * <p>Failures are {@link ProviderException}s. No library type crosses this port.
 */
public interface SharedVolumeProvider {

    /** Where an instance is: the provider project, the zone, the instance's name. */
    record VolumeLocator(String project, String location, String name) {
        @Override
        public String toString() {
            return "projects/" + project + "/locations/" + location + "/instances/" + name;
        }
    }

    /** What to create: the instance at {@code at}, labelled with our {@code volumeId}, of {@code sizeGiB}. */
    record VolumeSpec(VolumeLocator at, String volumeId, String tenantId, int sizeGiB) {}

    /** How the provider reports an instance. */
    enum Status {
        CREATING, READY, DELETING, ERROR, OTHER
    }

    /**
     * An instance as the provider has it.
     *
     * @param volumeId   our label on it; null when the instance does not carry it (not ours: never adopted or deleted)
     * @param address    the NFS server's address nodes mount from; null until ready
     * @param share      the exported file share's name
     * @param holders    the NFS clients the provider reports still mounting it (empty where the provider cannot tell)
     */
    record VolumeObservation(boolean exists, String volumeId, Status status, String statusMessage, String address, String share,
                             long capacityGiB, List<String> holders) {
        public VolumeObservation {
            holders = holders == null ? List.of() : List.copyOf(holders);
        }

        public static VolumeObservation absent() {
            return new VolumeObservation(false, null, null, null, null, null, 0, List.of());
        }
    }

    /** The instance now (one read). A missing one is {@link VolumeObservation#absent()}, not an error. */
    VolumeObservation observe(VolumeLocator at);

    /**
     * Starts creating the instance. One of that name carrying {@code spec.volumeId()} is adopted (no operation); one
     * without it is {@link ProviderException.Kind#FOREIGN}. A size or tier the provider refuses is
     * {@link ProviderException.Kind#INVALID}; an exhausted quota {@link ProviderException.Kind#QUOTA}.
     */
    String create(VolumeSpec spec);

    /**
     * Starts deleting the instance and every file on it. Gone already (or going) is a success (no operation); one
     * without our label is {@link ProviderException.Kind#FOREIGN} and is left alone.
     */
    String delete(VolumeLocator at, String volumeId);

    /**
     * How an operation stands ({@code name}: what create or delete returned). An operation the provider no longer
     * knows, or a null name, is {@link OperationStatus#SUCCEEDED}: the instance shows what happened.
     */
    OperationStatus operation(VolumeLocator at, String name);

    /**
     * The bytes the instance holds now (used, not capacity); empty when the provider cannot tell at the moment.
     * A missing instance is {@link ProviderException.Kind#NOT_FOUND}.
     */
    OptionalLong usedBytes(VolumeLocator at);
}
