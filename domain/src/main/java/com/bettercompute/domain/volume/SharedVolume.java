package com.bettercompute.domain.volume;

import java.time.Instant;

/**
 * A cluster's shared volume: one file share at the provider, made with its cluster, mounted at {@link #path} on
 * every node of it, and kept (by default) when the cluster is deleted.
 *
 * @param id                kvol_…, derived from the cluster's id
 * @param clusterName       the cluster's name when the volume was made: its label is {@code <clusterName>-shared}
 * @param storageName       the provider-side name (bc-v-…): what a person types back to delete it
 * @param location          the zone the file share lives in
 * @param sizeGiB           its capacity, fixed at creation by {@link VolumeSizePolicy}
 * @param deleteWithCluster the cluster's delete opted in to deleting it too
 * @param bytesHeld         the bytes it held at the last sample; null before the first
 * @param meter             the billing integral in progress; null before the first sample and after a delete
 * @param version           the row's revision: +1 on every change
 */
public record SharedVolume(
        String id,
        String tenantId,
        String clusterId,
        String clusterName,
        String providerAccountId,
        String region,
        String location,
        String storageName,
        String path,
        int sizeGiB,
        VolumeState state,
        String message,
        boolean deleteWithCluster,
        Long bytesHeld,
        Instant sampledAt,
        StorageMeter meter,
        Progress progress,
        long version,
        Instant createdAt,
        Instant updatedAt,
        Instant deletedAt) {

    /** Where every node mounts the volume (the control plane tells tenants: a cluster's {@code get} shows it). */
    public static final String MOUNT_PATH = "/mnt/shared";

    public SharedVolume {
        progress = progress == null ? Progress.NONE : progress;
    }

    /**
     * What the reconciler keeps between passes.
     *
     * @param pendingAction     the provider call about to be made, saved before making it (the intent); null when none
     * @param operation         the provider's operation that call started; null while unknown
     * @param failures          consecutive failed attempts, for the back-off
     * @param nextAttemptAt     when it is looked at next; null: never (deleted) or as soon as it can
     * @param deleteAcceptedAt  when a delete was accepted: billing stops here
     */
    public record Progress(String pendingAction, String operation, int failures, Instant nextAttemptAt, Instant deleteAcceptedAt) {
        public static final Progress NONE = new Progress(null, null, 0, null, null);

        public Progress intending(String action) {
            return new Progress(action, null, failures, nextAttemptAt, deleteAcceptedAt);
        }

        public Progress started(String op) {
            return new Progress(pendingAction, op, failures, nextAttemptAt, deleteAcceptedAt);
        }

        public Progress failedAttempt() {
            return new Progress(null, null, failures + 1, nextAttemptAt, deleteAcceptedAt);
        }

        public Progress settled() {
            return new Progress(null, null, 0, nextAttemptAt, deleteAcceptedAt);
        }

        public Progress next(Instant at) {
            return new Progress(pendingAction, operation, failures, at, deleteAcceptedAt);
        }

        Progress deleteAccepted(Instant at) {
            return new Progress(pendingAction, operation, failures, null, deleteAcceptedAt == null ? at : deleteAcceptedAt);
        }
    }

    /** A new volume for a cluster, recorded before the provider is asked to make it. */
    public static SharedVolume forCluster(String id, String tenantId, String clusterId, String clusterName, String providerAccountId,
                                          String region, String location, String storageName, int sizeGiB, Instant now) {
        return new SharedVolume(id, tenantId, clusterId, clusterName, providerAccountId, region, location, storageName, MOUNT_PATH,
                sizeGiB, VolumeState.PENDING, null, false, null, null, null, Progress.NONE, 1, now, now, null);
    }

    /** {@code <cluster>-shared}: how people know the volume. */
    public String label() {
        return clusterName + "-shared";
    }

    /** The storage name is shown under the label only when the two differ. */
    public boolean showsStorageName() {
        return !storageName.equals(label());
    }

    public boolean deleteAccepted() {
        return progress.deleteAcceptedAt() != null;
    }

    public SharedVolume withProgress(Progress p) {
        return copy(state, message, deleteWithCluster, bytesHeld, sampledAt, meter, p, version, updatedAt, deletedAt);
    }

    public SharedVolume withState(VolumeState s, String why, Instant now) {
        return copy(s, why, deleteWithCluster, bytesHeld, sampledAt, meter, progress, version + 1, now, deletedAt);
    }

    /** The cluster's delete asked for the volume to go too (or not): a new revision. */
    public SharedVolume withDeleteWithCluster(boolean optIn, Instant now) {
        return copy(state, message, optIn, bytesHeld, sampledAt, meter, progress, version + 1, now, deletedAt);
    }

    /**
     * A delete was accepted: the volume goes {@code deleting} and its meter ends (the caller bills what
     * {@link StorageMeter#stop} closed at {@code now} in the same transaction).
     */
    public SharedVolume deleteAcceptedAt(Instant now) {
        return copy(VolumeState.DELETING, null, deleteWithCluster, bytesHeld, sampledAt, null, progress.deleteAccepted(now), version + 1,
                now, deletedAt);
    }

    public SharedVolume deleted(Instant now) {
        return copy(VolumeState.DELETED, null, deleteWithCluster, bytesHeld, sampledAt, null,
                new Progress(null, null, 0, null, progress.deleteAcceptedAt()), version + 1, now, now);
    }

    /** A sample of the bytes held and the billing integral after it: the revision moves only when the bytes shown change. */
    public SharedVolume sampled(long bytes, Instant at, StorageMeter nextMeter) {
        boolean shown = bytesHeld == null || bytesHeld != bytes;
        return copy(state, message, deleteWithCluster, bytes, at, nextMeter, progress, shown ? version + 1 : version,
                shown ? at : updatedAt, deletedAt);
    }

    private SharedVolume copy(VolumeState s, String msg, boolean optIn, Long bytes, Instant sampled, StorageMeter m, Progress p,
                              long v, Instant updated, Instant deleted) {
        return new SharedVolume(id, tenantId, clusterId, clusterName, providerAccountId, region, location, storageName, path, sizeGiB,
                s, msg, optIn, bytes, sampled, m, p, v, createdAt, updated, deleted);
    }
}
