package com.bettercompute.application.admission;

import java.util.List;
import java.util.Map;

/**
 * A workload the cluster's API server asks about, as the admission adapter read it from the review: its kind,
 * what is done to it, its labels and each pod template with how many pods it makes.
 *
 * @param controlled a pod some controller owns (a Job's, a ReplicaSet's pod): the controller's own object was
 *                   checked at its apply, so only the size rules bind its pods (a retry, a rollout)
 * @param suspended  the job's {@code suspend} is already true
 */
public record Workload(Kind kind, Operation operation, String namespace, String name, Map<String, String> labels,
                       boolean controlled, boolean suspended, List<PodTemplate> templates) {
    public Workload {
        labels = Map.copyOf(labels);
        templates = List.copyOf(templates);
    }

    /** The GPUs of the whole workload: GPUs per pod × pods, summed across its templates. */
    public long gpuTotal() {
        long total = 0;
        for (PodTemplate t : templates) {
            total = Math.addExact(total, Math.multiplyExact(t.gpusPerPod(), (long) t.count()));
        }
        return total;
    }

    /** Whether any of its pods asks for a GPU. */
    public boolean usesGpus() {
        return templates.stream().anyMatch(t -> t.gpusPerPod() > 0);
    }

    /** The workload kinds the webhooks are registered for. */
    public enum Kind {
        JOB("Job"), JOBSET("JobSet"), MPIJOB("MPIJob"), POD("Pod"),
        DEPLOYMENT("Deployment"), STATEFULSET("StatefulSet"), REPLICASET("ReplicaSet");

        private final String display;

        Kind(String display) {
            this.display = display;
        }

        /** Whether Kueue holds it whole, suspended until its gang is granted (a job), rather than pod by pod. */
        public boolean gang() {
            return this == JOB || this == JOBSET || this == MPIJOB;
        }

        /** Whether each of its pods is its own request, held gated until granted (replicas: a pod template). */
        public boolean replicated() {
            return this == DEPLOYMENT || this == STATEFULSET || this == REPLICASET;
        }

        /** The kind as Kubernetes spells it. */
        public String display() {
            return display;
        }
    }

    /** What is done to an object, as the review names it. */
    public enum Operation {
        CREATE, UPDATE, DELETE, CONNECT
    }

    /**
     * One pod template.
     *
     * @param name       the template's name in its workload (a replicated job, an MPI replica type; the pod's name)
     * @param location   where the adapter found it (opaque here; the mutation answers name it back)
     * @param count      the pods it makes: parallelism, or replicas (times the replicated job's parallelism)
     * @param gpusPerPod {@code nvidia.com/gpu} per pod: limits, else requests, summed over its containers
     * @param nodeClass  its {@code nationalcompute.com/node-class} node selector, null when it names none
     * @param toleratesGpuWorker it already tolerates the GPU worker taint
     */
    public record PodTemplate(String name, String location, int count, long gpusPerPod, String nodeClass,
                              boolean toleratesGpuWorker) {
    }
}
