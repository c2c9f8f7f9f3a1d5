package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.VolumeViews.VolumeItem;
import com.bettercompute.adapters.http.VolumeViews.VolumeList;
import com.bettercompute.application.volume.DeleteVolume;
import com.bettercompute.domain.volume.VolumeState;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The shared volumes under {@code /api/k8s/}: the organization's list for people and automation, and the delete,
 * which any API token is refused ({@code session-required}): deleting a volume is a console action only.
 */
final class VolumeRoutes {
    static final String VOLUMES = "/api/k8s/volumes";
    private static final Pattern STORAGE_NAME = Pattern.compile("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$");

    private VolumeRoutes() {}

    static void install(Router router, VolumeUseCases v) {
        router.get(VOLUMES, "Every shared volume the organization owns: label, storage name, cluster or preserved, bytes, charge",
                List.of("org"), VolumeList.class, (caller, ctx) -> new VolumeList(v.list()
                        .list(caller, v.callers().org(caller, MarketRoutes.org(ctx))).stream().map(VolumeItem::of).toList()));
        router.delete(VOLUMES, "Delete a volume: a console action only; every API token is refused with session-required",
                List.of("volume", "confirm", "org"), VolumeItem.class, (caller, ctx) -> {
                    // before anything is read, the query included: no token ever learns more than that it may not
                    DeleteVolume.requireSession(caller);
                    String org = v.callers().org(caller, MarketRoutes.org(ctx));
                    var deleted = v.delete().delete(caller, org, MarketRoutes.required(ctx, "volume", STORAGE_NAME), ctx.queryParam("confirm"));
                    return VolumeItem.of(new com.bettercompute.application.volume.VolumeView(deleted,
                            deleted.state() == VolumeState.ATTACHED ? deleted.clusterName() : null, null, null));
                });
    }
}
