package com.bettercompute.domain.loadbalancer;

import java.util.Optional;

/**
 * Whether a Service that holds no address may take one now: provisioning must be enabled in its region, its
 * cluster must hold fewer load balancers than its cap, and the region's shared pool fewer addresses than its
 * limit. A Service that already holds its address keeps it whatever these say.
 */
public final class AllocationPolicy {
    private AllocationPolicy() {
    }

    /**
     * @param regionEnabled provisioning is enabled in the cluster's region
     * @param clusterCap    the cluster's cap (its tenant's, else the default)
     * @param clusterHeld   load balancers the cluster holds or is taking now
     * @param poolLimit     the region's shared pool limit
     * @param poolHeld      addresses of that pool held or being taken, by every tenant
     */
    public record Room(boolean regionEnabled, int clusterCap, int clusterHeld, int poolLimit, int poolHeld) {
    }

    public static Optional<Refusal> check(String region, Room room) {
        if (!room.regionEnabled()) {
            return Optional.of(new Refusal(RefusalReason.REGION_NOT_ENABLED,
                    "load balancer provisioning is not enabled in region " + region + "; ask support"));
        }
        if (room.clusterHeld() >= room.clusterCap()) {
            return Optional.of(new Refusal(RefusalReason.CLUSTER_CAP, "the cluster's load balancer cap is reached ("
                    + room.clusterHeld() + " of " + room.clusterCap() + "); it is provisioned when one is released, or ask support to raise the cap"));
        }
        if (room.poolHeld() >= room.poolLimit()) {
            return Optional.of(new Refusal(RefusalReason.POOL_LIMIT, "the platform's shared address pool in region " + region
                    + " is at its limit; it is provisioned when an address is released, or ask support"));
        }
        return Optional.empty();
    }
}
