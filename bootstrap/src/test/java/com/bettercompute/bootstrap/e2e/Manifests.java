package com.bettercompute.bootstrap.e2e;

/** The GPU Job the end-to-end tests apply with kubectl (or fabric8), in the market's node class. */
final class Manifests {
    private Manifests() {
    }

    /**
     * A Job of {@code pods} pods asking {@code gpusPerPod} GPUs each; {@code metadata}, when not null, is one more
     * line under the Job's metadata (labels or annotations, in YAML flow style).
     */
    static String gpuJob(String name, int pods, String gpusPerPod, String metadata) {
        return """
                apiVersion: batch/v1
                kind: Job
                metadata:
                  name: %s
                  namespace: default%s
                spec:
                  parallelism: %d
                  completions: %d
                  template:
                    spec:
                      restartPolicy: Never
                      nodeSelector: {nationalcompute.com/node-class: h100-8x}
                      containers:
                        - name: train
                          image: trainer
                          resources: {limits: {nvidia.com/gpu: "%s"}}
                """.formatted(name, metadata == null ? "" : "\n  " + metadata, pods, pods, gpusPerPod);
    }
}
