package com.bettercompute.domain.event;

/** An event of the clusters module: about a cluster, or about one of its node pools. */
public sealed interface KubernetesEvent permits ClusterEvent, NodePoolEvent {

    /** The spec's wire name, such as {@code kubernetes.cluster.ready}. */
    String type();

    /** The outbox's form: the wire name, the tenant, the subject and the data (plain JDK values, never a secret). */
    DomainEvent stored();
}
