package com.bettercompute.adapters.k8s.simulator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What JobSet's controller ({@code jobset.x-k8s.io/v1alpha2}) does in one simulated cluster where it runs,
 * one round at a time: every replicated job's {@code replicas} Jobs {@code <jobset>-<replicatedJob>-<index>},
 * owned by the JobSet and labelled as JobSet labels them; a suspended JobSet suspends its Jobs, and when it
 * resumes each suspended Job takes its replicated job's pod template as it is then (what Kueue wrote there at
 * admission: node selectors, tolerations) and starts; the JobSet completes when all its Jobs have. Jobs of a
 * JobSet that is gone go (the garbage collector). Failure and success policies are not simulated.
 */
final class SimulatedJobSets {
    static final String API = "/apis/jobset.x-k8s.io/v1alpha2";
    static final String COLLECTION = API + "/jobsets";
    static final String API_VERSION = "jobset.x-k8s.io/v1alpha2";
    static final String NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
    static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";
    static final String INDEX_LABEL = "jobset.sigs.k8s.io/job-index";

    private final ClusterStore store;

    SimulatedJobSets(ClusterStore store) {
        this.store = store;
    }

    void reconcile(Instant now) {
        String stamp = now.toString();
        List<Map<String, Object>> sets = store.list(COLLECTION);
        Set<String> uids = new HashSet<>();
        sets.forEach(s -> uids.add(SimulatedKueue.uid(s)));
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Map<String, Object> job : store.list("/apis/batch/v1/jobs")) {
            Map<String, Object> owner = SimulatedPods.controllerOf(job);
            if (owner != null && "JobSet".equals(owner.get("kind"))) {
                if (!uids.contains(String.valueOf(owner.get("uid")))) {
                    store.delete(SimulatedKueue.jobPath(job));
                } else {
                    jobs.add(job);
                }
            }
        }
        for (Map<String, Object> set : sets) {
            sync(set, jobs.stream().filter(j -> SimulatedKueue.uid(set).equals(SimulatedPods.ownerUid(j))).toList(), stamp);
        }
    }

    private void sync(Map<String, Object> set, List<Map<String, Object>> owned, String stamp) {
        Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
        owned.forEach(j -> byName.put(Obj.name(j), j));
        boolean suspended = Boolean.TRUE.equals(Obj.at(set, "spec", "suspend"));
        boolean completed = Obj.isTrue(set, "Completed");
        List<Object> replicatedStatus = new ArrayList<>();
        long jobsTotal = 0;
        long jobsComplete = 0;
        for (Object r : Obj.list(Obj.at(set, "spec", "replicatedJobs"))) {
            Map<String, Object> rj = Obj.map(r);
            String rjName = String.valueOf(rj.get("name"));
            long replicas = Obj.num(rj, 1, "replicas");
            long ready = 0;
            long succeeded = 0;
            long active = 0;
            long suspendedJobs = 0;
            for (int i = 0; i < replicas; i++) {
                jobsTotal++;
                String name = Obj.name(set) + "-" + rjName + "-" + i;
                Map<String, Object> job = byName.get(name);
                if (job == null && !completed) {
                    job = store.create("/apis/batch/v1/namespaces/" + Obj.namespace(set) + "/jobs", job(set, rj, name, i, suspended));
                } else if (job != null && !completed && suspended != Boolean.TRUE.equals(Obj.at(job, "spec", "suspend"))) {
                    Map<String, Object> changed = Obj.copy(job);
                    Obj.child(changed, "spec").put("suspend", suspended);
                    // resumed or suspended, a Job takes its replicated job's pod template as the JobSet holds it now
                    Obj.child(changed, "spec").put("template", podTemplate(set, rj, i));
                    job = store.replace(SimulatedKueue.jobPath(job), changed);
                }
                if (job == null) {
                    continue;
                }
                boolean complete = Obj.isTrue(job, "Complete");
                jobsComplete += complete ? 1 : 0;
                succeeded += complete ? 1 : 0;
                active += Obj.num(job, 0, "status", "active") > 0 ? 1 : 0;
                ready += Obj.num(job, 0, "status", "ready") > 0 ? 1 : 0;
                suspendedJobs += Boolean.TRUE.equals(Obj.at(job, "spec", "suspend")) ? 1 : 0;
            }
            Map<String, Object> rs = new LinkedHashMap<>();
            rs.put("name", rjName);
            rs.put("ready", ready);
            rs.put("succeeded", succeeded);
            rs.put("failed", 0);
            rs.put("active", active);
            rs.put("suspended", suspendedJobs);
            replicatedStatus.add(rs);
        }
        Map<String, Object> changed = Obj.copy(set);
        Obj.child(changed, "status").put("replicatedJobsStatus", replicatedStatus);
        if (!completed && jobsTotal > 0 && jobsComplete == jobsTotal) {
            Obj.setCondition(changed, "Completed", "True", "AllJobsCompleted", "jobset completed successfully", stamp);
            Obj.child(changed, "status").put("terminalState", "Completed");
        }
        if (suspended) {
            Obj.setCondition(changed, "Suspended", "True", "SuspendedJobs", "jobset is suspended", stamp);
        } else if (Obj.condition(changed, "Suspended") != null) {
            Obj.setCondition(changed, "Suspended", "False", "ResumeJobs", "jobset is resumed", stamp);
        }
        if (!changed.equals(set)) {
            store.replace(API + "/namespaces/" + Obj.namespace(set) + "/jobsets/" + Obj.name(set), changed);
        }
    }

    private static Map<String, Object> job(Map<String, Object> set, Map<String, Object> rj, String name, int index, boolean suspended) {
        Map<String, Object> template = Obj.map(rj.get("template"));
        Map<String, Object> metadata = Obj.copy(Obj.map(template.get("metadata")));
        metadata.put("name", name);
        metadata.put("namespace", Obj.namespace(set));
        Obj.child(metadata, "labels").putAll(labels(set, rj, index));
        Object runsFor = Obj.annotations(set).get(SimulatedPods.RUNS_FOR);
        if (runsFor != null) {
            Obj.child(metadata, "annotations").put(SimulatedPods.RUNS_FOR, runsFor);
        }
        metadata.put("ownerReferences", List.of(SimulatedKueue.owner(API_VERSION, "JobSet", set)));
        Map<String, Object> spec = Obj.copy(Obj.map(template.get("spec")));
        spec.put("suspend", suspended);
        spec.put("template", podTemplate(set, rj, index));
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("apiVersion", "batch/v1");
        job.put("kind", "Job");
        job.put("metadata", metadata);
        job.put("spec", spec);
        return job;
    }

    /** The replicated job's pod template as the JobSet holds it now, with JobSet's labels on its pods. */
    private static Map<String, Object> podTemplate(Map<String, Object> set, Map<String, Object> rj, int index) {
        Map<String, Object> template = Obj.copy(Obj.map(Obj.at(Obj.map(rj.get("template")), "spec", "template")));
        Obj.child(template, "metadata", "labels").putAll(labels(set, rj, index));
        return template;
    }

    private static Map<String, String> labels(Map<String, Object> set, Map<String, Object> rj, int index) {
        return Map.of(NAME_LABEL, Obj.name(set), REPLICATED_JOB_LABEL, String.valueOf(rj.get("name")), INDEX_LABEL, Integer.toString(index));
    }
}
