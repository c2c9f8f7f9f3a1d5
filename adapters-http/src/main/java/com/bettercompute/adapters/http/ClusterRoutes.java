package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.Views.ClusterList;
import com.bettercompute.adapters.http.Views.ClusterView;
import com.bettercompute.adapters.http.Views.CredentialsView;
import com.bettercompute.adapters.http.Views.VersionsView;

/** {@code POST /api/compute/kubernetesClusters/<method>}: the clusters spec's methods. */
final class ClusterRoutes {
    static final String BASE = "/api/compute/kubernetesClusters/";

    private ClusterRoutes() {}

    static void install(Router router, ApiUseCases uc) {
        install(router, uc, null);
    }

    /** With {@code volumes}: {@code get} shows the cluster's shared volume and {@code delete} takes {@code deleteVolume}. */
    static void install(Router router, ApiUseCases uc, VolumeUseCases volumes) {
        router.post(BASE + "create", "Create a cluster (idempotent by idempotencyKey)", ClusterRequests.CreateCluster.BODY,
                ClusterView.class, (caller, command) -> ClusterView.of(uc.createCluster().create(caller, command)));
        router.post(BASE + "list", "List a tenant's clusters", ClusterRequests.ListClusters.BODY,
                ClusterList.class, (caller, query) -> ClusterList.of(uc.listClusters().list(caller, query)));
        router.post(BASE + "get", "Read one cluster", ClusterRequests.OneCluster.BODY,
                ClusterView.class, (caller, ref) -> {
                    var c = uc.getCluster().get(caller, ref);
                    return ClusterView.of(c, volumes == null ? null
                            : volumes.list().ofCluster(c).map(VolumeViews.ClusterVolume::of).orElse(null));
                });
        router.post(BASE + "update", "Change a cluster's version, channel, networks or description", ClusterRequests.UpdateCluster.BODY,
                ClusterView.class, (caller, command) -> ClusterView.of(uc.updateCluster().update(caller, command)));
        router.post(BASE + "delete", "Delete a cluster; its shared volume is preserved unless deleteVolume is true",
                ClusterRequests.DeleteCluster.BODY, ClusterView.class,
                (caller, cmd) -> ClusterView.of(uc.deleteCluster().delete(caller, cmd.ref(), cmd.deleteVolume())));
        router.post(BASE + "versions", "The Kubernetes versions a pool offers at a location", ClusterRequests.Versions.BODY,
                VersionsView.class, (caller, query) -> VersionsView.of(uc.listVersions().versions(caller, query)));
        router.post(BASE + "credentials", "Issue a kubeconfig for a cluster", ClusterRequests.Credentials.BODY,
                CredentialsView.class, (caller, command) -> CredentialsView.of(uc.issueCredentials().issue(caller, command)));
    }
}
