package com.bettercompute.application.cluster;

/**
 * The wire name of the one cluster event that is not about the cluster's state: its data is the credential's
 * (never the token), built by {@link IssueCredentials}. The others are {@link com.bettercompute.domain.event.ClusterEvent}s.
 */
public final class ClusterEvents {
    public static final String CREDENTIALS_ISSUED = "kubernetes.cluster.credentials-issued";

    private ClusterEvents() {}
}
