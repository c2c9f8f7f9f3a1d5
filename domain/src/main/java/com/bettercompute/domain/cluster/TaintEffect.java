package com.bettercompute.domain.cluster;

/** Kubernetes' taint effects; the wire form is Kubernetes' own spelling. */
public enum TaintEffect {
    /** New pods without a toleration are not scheduled. */
    NoSchedule,
    /** The scheduler avoids the node when it can. */
    PreferNoSchedule,
    /** Running pods without a toleration are evicted. */
    NoExecute
}
