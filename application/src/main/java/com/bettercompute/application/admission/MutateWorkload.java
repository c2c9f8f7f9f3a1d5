package com.bettercompute.application.admission;

import com.bettercompute.application.port.MarketClusterClient;

/**
 * The mutating webhook's part of launch admission: what Kueue and the GPU nodes need on a new GPU workload,
 * so that the tenant writes none of it. A GPU pod template gets the GPU worker taint's toleration; a GPU job
 * (Job, JobSet, MPIJob) gets the queue name of the LocalQueue {@value #LOCAL_QUEUE} and {@code suspend: true},
 * and Kueue starts it when the market grants its nodes; a bare GPU pod, and the pods of a GPU Deployment,
 * StatefulSet or ReplicaSet (on their template), get the queue name, so Kueue gates each pod until its own
 * request is granted. A workload another owns (a JobSet's Jobs, a ReplicaSet's pods) is queued through its
 * owner. What the workload already carries is kept: a queue name of its own, a toleration it wrote. CPU-only
 * work is outside the market and left as it is.
 */
public final class MutateWorkload {
    /** Kueue's label naming a job's LocalQueue. */
    public static final String QUEUE_LABEL = "kueue.x-k8s.io/queue-name";
    /** The LocalQueue the platform keeps for jobs that name none (docs/decisions/admission.md). */
    public static final String LOCAL_QUEUE = "default";
    /** The taint every market GPU node carries: {@code nationalcompute.com/gpu-worker=true:NoSchedule}. */
    public static final String GPU_WORKER_TAINT = MarketClusterClient.GPU_WORKER_TAINT;

    public Mutations mutations(Workload workload) {
        if (workload.operation() != Workload.Operation.CREATE || !workload.usesGpus()) {
            return Mutations.NONE;
        }
        var tolerate = workload.templates().stream()
                .filter(t -> t.gpusPerPod() > 0 && !t.toleratesGpuWorker()).map(Workload.PodTemplate::location).toList();
        // a workload some other owns (a JobSet's Jobs, a ReplicaSet's pods) is queued through its owner, never on its own
        boolean own = !workload.controlled();
        return new Mutations(tolerate, own && !workload.labels().containsKey(QUEUE_LABEL),
                own && workload.kind().gang() && !workload.suspended());
    }
}
