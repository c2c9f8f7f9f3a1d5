package com.bettercompute.adapters.http;

import com.bettercompute.application.volume.VolumeView;
import com.bettercompute.domain.volume.SharedVolume;

import java.util.List;

/** The shared volumes as the {@code /api/k8s/} routes and a cluster's {@code get} show them (snake_case, as the market's). */
final class VolumeViews {
    private VolumeViews() {}

    /**
     * One volume of {@code GET /api/k8s/volumes}: {@code cluster} null is "preserved, no cluster"; {@code storage_name}
     * null when it is the label; {@code charge_per_month} and {@code charged} (decimal USD strings) null where storage
     * billing is not enabled for the site; {@code bytes} null before the first sample.
     */
    record VolumeItem(String label, @MayBeNull String storage_name, @MayBeNull String cluster, String state, String path, int size_gib,
                      @MayBeNull Long bytes, @MayBeNull String charge_per_month, @MayBeNull String charged, @MayBeNull String message,
                      String created_at) {
        static VolumeItem of(VolumeView view) {
            SharedVolume v = view.volume();
            return new VolumeItem(v.label(), v.showsStorageName() ? v.storageName() : null, view.attachedTo(), v.state().wire(), v.path(),
                    v.sizeGiB(), v.bytesHeld(), view.chargePerMonth() == null ? null : view.chargePerMonth().toString(),
                    view.charged() == null ? null : view.charged().toString(), v.message(), Views.time(v.createdAt()));
        }
    }

    record VolumeList(List<VolumeItem> items) {}

    /** A cluster's volume in its {@code get}: where every node mounts it, and what it is called. */
    record ClusterVolume(String path, String label, String storageName, int sizeGiB, String state) {
        static ClusterVolume of(SharedVolume v) {
            return new ClusterVolume(v.path(), v.label(), v.storageName(), v.sizeGiB(), v.state().wire());
        }
    }
}
