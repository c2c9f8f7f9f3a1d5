package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.Cluster;

/**
 * Told when a cluster becomes ready for the first time (the reconciler saved its
 * {@code kubernetes.cluster.ready} event). Called after that save committed; a listener is idempotent
 * and must not throw for a cluster it has no interest in.
 */
public interface ClusterReadiness {
    ClusterReadiness NONE = cluster -> { };

    void ready(Cluster cluster);
}
