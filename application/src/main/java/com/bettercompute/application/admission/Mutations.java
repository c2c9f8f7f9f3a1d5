package com.bettercompute.application.admission;

import java.util.List;

/**
 * What the mutating webhook adds to a workload, so that a tenant writes neither queue name, nor
 * {@code suspend: true}, nor the GPU worker toleration.
 *
 * @param tolerateAt the {@link Workload.PodTemplate#location()}s of the GPU templates that lack the toleration
 * @param queueLabel add {@code kueue.x-k8s.io/queue-name: default} (for replicas: on their pod template too)
 * @param suspend    set the job's {@code suspend} to true (Kueue starts it when its nodes are granted)
 */
public record Mutations(List<String> tolerateAt, boolean queueLabel, boolean suspend) {
    public static final Mutations NONE = new Mutations(List.of(), false, false);

    public Mutations {
        tolerateAt = List.copyOf(tolerateAt);
    }

    public boolean none() {
        return tolerateAt.isEmpty() && !queueLabel && !suspend;
    }
}
