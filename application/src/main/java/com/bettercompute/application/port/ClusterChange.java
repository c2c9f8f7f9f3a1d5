package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.ReleaseChannel;

import java.util.List;
import java.util.Objects;

/** One in-place change of a cluster's control plane. The provider takes exactly one per call. */
public sealed interface ClusterChange {

    /** Move the control plane to a version ({@code 1.33}, a full version, or {@code latest}). */
    record MasterVersion(String version) implements ClusterChange {
        public MasterVersion {
            Objects.requireNonNull(version, "version");
        }
    }

    /** Enroll the cluster in another release channel. */
    record Channel(ReleaseChannel channel) implements ClusterChange {
        public Channel {
            Objects.requireNonNull(channel, "channel");
        }
    }

    /** Replace the CIDRs allowed to reach the control plane; empty: any address. */
    record AuthorizedNetworks(List<String> cidrs) implements ClusterChange {
        public AuthorizedNetworks {
            cidrs = cidrs == null ? List.of() : List.copyOf(cidrs);
        }
    }

    /**
     * Turn Identity Service for GKE on or off: on, the cluster takes people's sign-in by the platform's ID tokens
     * (through the {@code ClientConfig} the platform writes in it). Standard clusters only.
     */
    record IdentityService(boolean enabled) implements ClusterChange {}
}
