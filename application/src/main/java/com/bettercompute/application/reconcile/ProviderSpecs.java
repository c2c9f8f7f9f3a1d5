package com.bettercompute.application.reconcile;

import com.bettercompute.application.provider.Accelerator;
import com.bettercompute.application.provider.Autoscaling;
import com.bettercompute.application.provider.ClusterLocator;
import com.bettercompute.application.provider.ClusterSpec;
import com.bettercompute.application.provider.Mode;
import com.bettercompute.application.provider.NodePoolSpec;
import com.bettercompute.application.provider.ReleaseChannel;
import com.bettercompute.application.provider.Taint;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.NodePool;
import com.bettercompute.domain.cluster.TaintEffect;

import java.util.List;

/** Our cluster and node pools in the provider's terms. */
public final class ProviderSpecs {
    private ProviderSpecs() {}

    /**
     * The cluster's place at the provider: its account's cloud project, its location, its provider-side
     * name. GKE runs Autopilot clusters only in regions, so an Autopilot cluster asked for in a zone runs
     * in that zone's region (its {@code location} still shows what the tenant asked).
     */
    public static ClusterLocator locator(Cluster c, ProviderAccount account) {
        String location = c.mode() == com.bettercompute.domain.cluster.ClusterMode.AUTOPILOT ? c.region() : c.location();
        return new ClusterLocator(account.cloudProject(), location, c.providerName());
    }

    /**
     * The control plane as wanted. The provider-side VPC network is named by the catalog network's id,
     * the subnetwork by the subnet's name (docs/decisions.md).
     */
    static ClusterSpec cluster(Cluster c, ClusterLocator at) {
        return new ClusterSpec(at, c.id(), mode(c), channel(c.releaseChannel()), c.requestedVersion(),
                c.authorizedNetworks(), c.privateNodes(), c.networkId(), c.subnetName());
    }

    static Mode mode(Cluster c) {
        return c.mode() == com.bettercompute.domain.cluster.ClusterMode.AUTOPILOT ? Mode.AUTOPILOT : Mode.STANDARD;
    }

    static ReleaseChannel channel(com.bettercompute.domain.cluster.ReleaseChannel channel) {
        return ReleaseChannel.valueOf(channel.name());
    }

    static NodePoolSpec nodePool(NodePool p) {
        var s = p.spec();
        List<Taint> taints = s.taints().stream().map(t -> new Taint(t.key(), t.value(), effect(t.effect()))).toList();
        return new NodePoolSpec(s.name(), s.machineType(), s.nodeCount(), autoscaling(s.autoscaling()), s.diskGiB(),
                s.diskType(), s.spot(), s.accelerators() == null ? null : new Accelerator(s.accelerators().type(), s.accelerators().count()),
                s.zones(), s.labels(), taints);
    }

    static Autoscaling autoscaling(com.bettercompute.domain.cluster.Autoscaling a) {
        return a == null ? null : new Autoscaling(a.minNodes(), a.maxNodes());
    }

    private static Taint.Effect effect(TaintEffect e) {
        return switch (e) {
            case NoSchedule -> Taint.Effect.NO_SCHEDULE;
            case PreferNoSchedule -> Taint.Effect.PREFER_NO_SCHEDULE;
            case NoExecute -> Taint.Effect.NO_EXECUTE;
        };
    }

    /**
     * Whether the version the provider runs is the one asked for: a minor ({@code 1.33}) is met by any
     * of its patches, a patch ({@code 1.33.4}) by any of its builds, a full version only by itself.
     */
    static boolean versionMatches(String requested, String running) {
        if (requested == null) {
            return true;
        }
        if (running == null) {
            return false;
        }
        if (running.equals(requested)) {
            return true;
        }
        String[] parts = requested.split("-", 2)[0].split("\\.");
        if (requested.contains("-")) {
            return false;
        }
        return parts.length == 2 ? running.startsWith(requested + ".") : running.startsWith(requested + "-");
    }
}
