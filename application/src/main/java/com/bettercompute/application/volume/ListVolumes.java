package com.bettercompute.application.volume;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.access.Resource;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StoragePrice;
import com.bettercompute.domain.volume.VolumeSizePolicy;
import com.bettercompute.domain.volume.VolumeState;

import java.util.List;
import java.util.Optional;

/**
 * The organization's shared volumes, for the Storage page and {@code GET /api/k8s/volumes}: every volume it owns (being
 * made, attached, preserved, or with its delete accepted), oldest first. Needs read on the tenant.
 */
public final class ListVolumes {
    private final VolumeRepository volumes;
    private final StorageLedger ledger;
    private final StorageSettings settings;
    private final Authorizer authorizer;

    public ListVolumes(VolumeRepository volumes, StorageLedger ledger, StorageSettings settings, Authorizer authorizer) {
        this.volumes = volumes;
        this.ledger = ledger;
        this.settings = settings;
        this.authorizer = authorizer;
    }

    public List<VolumeView> list(Caller caller, String org) {
        authorizer.require(caller, Action.READ, Resource.tenant(org));
        return volumes.forTenant(org).stream()
                .filter(v -> v.state() != VolumeState.FAILED && v.state() != VolumeState.DELETED)
                .map(this::view).toList();
    }

    VolumeView view(SharedVolume v) {
        String attachedTo = v.state() == VolumeState.ATTACHED || v.state() == VolumeState.PENDING ? v.clusterName() : null;
        Optional<StoragePrice> price = settings.price(v.region());
        return new VolumeView(v, attachedTo,
                price.map(p -> p.perMonth(v.state() == VolumeState.DELETING || v.bytesHeld() == null ? 0 : v.bytesHeld())).orElse(null),
                price.map(p -> ledger.chargedFor(v.id())).orElse(null));
    }

    /**
     * The volume a cluster has, or will have (on a pool that provisions shared storage, before the provider accepted the
     * cluster: the volume is recorded at the cluster's first pass), for its {@code get} and its console page; empty when
     * it has none. The caller has been allowed to read the cluster.
     */
    public Optional<SharedVolume> ofCluster(Cluster c) {
        Optional<SharedVolume> v = volumes.forCluster(c.id());
        if (v.isPresent()) {
            return v.filter(found -> found.state() != VolumeState.DELETED);
        }
        if (c.progress().providerAcceptedAt() != null || !settings.provisions(c.poolId()) || c.goingAway()) {
            return Optional.empty();
        }
        String id = Ids.volumeId(c.id());
        return Optional.of(SharedVolume.forCluster(id, c.tenantId(), c.id(), c.name(), c.providerAccountId(), c.region(), c.location(),
                Ids.volumeStorageName(id), VolumeSizePolicy.sizeGiB(c.createdAt()), c.createdAt()));
    }
}
