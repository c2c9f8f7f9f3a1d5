package com.bettercompute.adapters.http.console;

import com.bettercompute.adapters.http.ApiBodies;
import com.bettercompute.application.volume.VolumeView;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.VolumeDeletePolicy;
import com.bettercompute.domain.volume.VolumeState;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Storage page: every shared volume of the organization (label, the storage name under it when the two differ,
 * the cluster it is attached to or "preserved, no cluster", its size, the bytes it holds, its charge where storage
 * billing is on) and Delete volume on each row, which the person confirms by typing the storage name back. The
 * page is the only way to delete a volume: the API refuses every token ({@code session-required}).
 */
final class StoragePages {
    /** A storage name as the provider takes it; anything else in the path is the 404 page. */
    private static final Pattern STORAGE_NAME = Pattern.compile("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");

    private final Console console;

    StoragePages(Console console) {
        this.console = console;
    }

    void install(Pages pages) {
        pages.get("/storage", v -> list(v, null, Model.Form.EMPTY, 200));
        pages.post("/storage/{volume}/delete", this::delete);
    }

    private List<VolumeView> volumes(Pages.Visit v) {
        return console.volumes == null ? List.of() : console.volumes.list().list(v.caller(), v.org());
    }

    /** @param refused the storage name whose delete form is sent back with {@code form}'s problem; null: none */
    private void list(Pages.Visit v, String refused, Model.Form form, int status) {
        List<VolumeView> volumes = volumes(v);
        List<Model.VolumeRow> rows = volumes.stream().map(StoragePages::row).toList();
        boolean billing = volumes.stream().anyMatch(view -> view.chargePerMonth() != null);
        console.html(v.ctx(), status, "storage.jte", new Model.StoragePage(v.chrome("Storage", "storage", null, null), v.org(),
                rows, billing, refused, form));
    }

    private void delete(Pages.Visit v) {
        String name = v.ctx().pathParam("volume");
        if (console.volumes == null || !STORAGE_NAME.matcher(name).matches()) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No such volume.");
        }
        String typed = v.form("confirm");
        try {
            SharedVolume deleting = console.volumes.delete().delete(v.caller(), v.org(), name, typed);
            Pages.seeOther(v.ctx(), "/storage" + Flash.query("volume-deleting", deleting.label()));
        } catch (DomainException e) {
            Object reason = e.details().get("reason");
            if (VolumeDeletePolicy.CONFIRMATION_MISMATCH.equals(reason)) {
                list(v, name, new Model.Form(Map.of("confirm", typed), Map.of("confirm", e.getMessage()), null), 400);
            } else if (VolumeDeletePolicy.ATTACHED.equals(reason)) {
                list(v, name, new Model.Form(Map.of("confirm", typed), Map.of(), e.getMessage()), ApiBodies.status(e.code()));
            } else {
                throw e;
            }
        }
    }

    static Model.VolumeRow row(VolumeView view) {
        SharedVolume v = view.volume();
        return new Model.VolumeRow(v.label(), v.showsStorageName() ? v.storageName() : null, v.storageName(),
                view.attachedTo(), view.attachedTo() == null ? null : v.clusterId(), v.state().wire(), v.path(), size(v.sizeGiB()),
                v.bytesHeld() == null ? null : bytes(v.bytesHeld()), v.bytesHeld(), Words.usd(view.chargePerMonth()),
                Words.usd(view.charged()), v.message(), v.state() != VolumeState.DELETING);
    }

    /** A cluster's volume on its page (where every node mounts it); null when it has none. */
    static Model.VolumePanel panel(Console console, Cluster c) {
        if (console.volumes == null) {
            return null;
        }
        return console.volumes.list().ofCluster(c).map(v -> new Model.VolumePanel(v.path(), v.label(),
                v.showsStorageName() ? v.storageName() : null, size(v.sizeGiB()), v.state().wire())).orElse(null);
    }

    /** {@code 2 TiB}, {@code 512 GiB}. */
    static String size(int gib) {
        return gib % 1024 == 0 ? gib / 1024 + " TiB" : gib + " GiB";
    }

    /** Bytes as people read them, in binary units: {@code 0 B}, {@code 1.0 MiB}, {@code 3.2 GiB}. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = n;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
