package com.bettercompute.application.incluster;

import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.domain.cluster.Ids;

/**
 * The names that tie a tenant cluster's objects to the market's (docs/decisions/market-in-cluster.md): a job's market id, a request's label value and deterministic Event names.
 */
public final class InClusterNames {
    private InClusterNames() {
    }

    /**
     * The market's job id of a job in a cluster, the same for every attempt: {@code <cluster id>/<namespace>/<name>}
     * for a Job, {@code <cluster id>/<namespace>/<Kind>:<name>} for any other kind (a JobSet, an MPIJob, a pod), so a
     * pod and a Job of one name are two jobs.
     */
    public static String jobId(String clusterId, ObjectRef job) {
        boolean batchJob = "Job".equals(job.kind()) && (job.apiVersion() == null || job.apiVersion().startsWith("batch/"));
        return jobPrefix(clusterId) + job.namespace() + "/" + (batchJob ? "" : job.kind() + ":") + job.name();
    }

    /** What every job id of a cluster starts with. */
    public static String jobPrefix(String clusterId) {
        return clusterId + "/";
    }

    /**
     * A market request's short id, the value of its nodes' {@code nationalcompute.com/request} label and of its
     * ProvisioningRequest's {@code provisioningClassDetails}: a label value, so a hash of the request id.
     */
    public static String requestLabel(String requestId) {
        return "r-" + Ids.sha256Hex(requestId).substring(0, 20);
    }

    /** An Event's name on {@code on}: derived from what it reports, so a replay posts the same name. */
    public static String eventName(ObjectRef on, String... facts) {
        String base = on.name().length() > 200 ? on.name().substring(0, 200) : on.name();
        return base + "." + Ids.sha256Hex(String.join("\n", facts)).substring(0, 16);
    }
}
