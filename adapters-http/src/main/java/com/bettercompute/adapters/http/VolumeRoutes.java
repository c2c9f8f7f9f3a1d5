package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.QueryString.Param;
import com.bettercompute.adapters.http.VolumeViews.VolumeItem;
import com.bettercompute.adapters.http.VolumeViews.VolumeList;
import com.bettercompute.application.volume.DeleteVolume;
import com.bettercompute.application.volume.VolumeView;
import com.bettercompute.domain.volume.VolumeState;

import java.util.List;

/**
 * The shared volumes under {@code /api/k8s/}: the organization's list for people and automation, and the delete,
 * which any API token is refused ({@code session-required}): deleting a volume is a console action only.
 */
final class VolumeRoutes {
    static final String VOLUMES = "/api/k8s/volumes";
    static final Param VOLUME = Param.required("volume", Wire.STORAGE_NAME, "the volume's storage name");
    /** Anything the document allows: a mismatch is the use case's refusal ({@code confirmation-mismatch}), naming the name. */
    static final Param CONFIRM = Param.required("confirm", Schema.Text.any(63),
            "the volume's storage name typed back by the person, exactly; anything else is refused (confirmation-mismatch)");

    private VolumeRoutes() {}

    static void install(Router router, VolumeUseCases v) {
        router.get(VOLUMES, "Every shared volume the organization owns: label, storage name, cluster or preserved, bytes, charge",
                List.of(MarketRoutes.ORG), VolumeList.class, (caller, q) -> new VolumeList(v.list()
                        .list(caller, v.callers().org(caller, q.text("org"))).stream().map(VolumeItem::of).toList()));
        // the session is required before the query is read: no token ever learns more than that it may not
        router.delete(VOLUMES, "Delete a volume: a console action only; every API token is refused with session-required",
                DeleteVolume::requireSession, List.of(VOLUME, CONFIRM, MarketRoutes.ORG), VolumeItem.class, (caller, q) -> {
                    String org = v.callers().org(caller, q.text("org"));
                    var deleted = v.delete().delete(caller, org, q.text("volume"), q.text("confirm"));
                    return VolumeItem.of(new VolumeView(deleted, deleted.state() == VolumeState.ATTACHED ? deleted.clusterName() : null,
                            null, null));
                });
    }
}
