package com.bettercompute.adapters.k8s.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The job integrations of the simulated Kueue, each as Kueue's own integration sees its kind: where its
 * objects are, whether one is suspended, its pod sets (name, count, template), how it is started with the
 * templates Kueue admitted and stopped with its own back. Which of them run is Kueue's configuration
 * ({@code integrations.frameworks}).
 */
final class KueueFrameworks {
    private KueueFrameworks() {}

    static final String MANAGED_LABEL = "kueue.x-k8s.io/managed";
    /** The scheduling gate Kueue's pod webhook puts on a pod it manages, lifted at admission. */
    static final String ADMISSION_GATE = "kueue.x-k8s.io/admission";

    /** One pod set of a workload: its name, how many pods, their template. */
    record PodSet(String name, long count, Map<String, Object> template) {}

    /** One integration. */
    abstract static class Framework {
        /** Its name in Kueue's configuration ({@code batch/job}, {@code pod}…). */
        abstract String name();

        abstract String collection();

        abstract String apiVersion();

        abstract String kind();

        abstract String path(Map<String, Object> object);

        abstract boolean suspended(Map<String, Object> object);

        abstract List<PodSet> podSets(Map<String, Object> object);

        /** The object started with these templates (by pod set name). */
        abstract Map<String, Object> started(Map<String, Object> object, Map<String, Map<String, Object>> templates);

        /** The object suspended with its own templates back; null: it is deleted (a pod cannot be suspended). */
        abstract Map<String, Object> stopped(Map<String, Object> object, List<PodSet> original);

        abstract boolean finished(Map<String, Object> object);

        /** Whether it ran before Kueue saw it (a Job with a start time while not suspended): Kueue leaves it alone. */
        boolean runningUnqueued(Map<String, Object> object) {
            return false;
        }

        /** The Workload's name prefix: the kind in lower case, as Kueue names Workloads. */
        String prefix() {
            return kind().toLowerCase(Locale.ROOT);
        }

        /** Whether Kueue's job reconciler would manage this object at all (pods: only those its webhook marked). */
        boolean manages(Map<String, Object> object, List<String> managedKinds) {
            Map<String, Object> owner = SimulatedPods.controllerOf(object);
            return owner == null || !managedKinds.contains(String.valueOf(owner.get("kind")));
        }
    }

    /**
     * A job Kueue suspends whole: started by writing the admitted templates into it and resuming it, stopped by
     * suspending it with its own templates back.
     */
    abstract static class SuspendableJob extends Framework {
        /** The object with these pod set templates (by pod set name) in place of its own. */
        abstract Map<String, Object> withTemplates(Map<String, Object> o, Map<String, Map<String, Object>> templates);

        /** Sets the object's suspend field. */
        abstract void suspend(Map<String, Object> o, boolean suspend);

        Map<String, Object> started(Map<String, Object> o, Map<String, Map<String, Object>> templates) {
            Map<String, Object> changed = withTemplates(o, templates);
            suspend(changed, false);
            return changed;
        }

        Map<String, Object> stopped(Map<String, Object> o, List<PodSet> original) {
            Map<String, Map<String, Object>> back = new LinkedHashMap<>();
            original.stream().filter(set -> set.template() != null).forEach(set -> back.put(set.name(), set.template()));
            Map<String, Object> changed = withTemplates(o, back);
            suspend(changed, true);
            return changed;
        }
    }

    static List<Framework> all() {
        return List.of(new BatchJob(), new JobSet(), new MpiJob(), new Pod());
    }

    static final class BatchJob extends SuspendableJob {
        String name() { return "batch/job"; }
        String collection() { return "/apis/batch/v1/jobs"; }
        String apiVersion() { return "batch/v1"; }
        String kind() { return "Job"; }
        String path(Map<String, Object> o) { return SimulatedKueue.jobPath(o); }

        boolean suspended(Map<String, Object> o) {
            return Boolean.TRUE.equals(Obj.at(o, "spec", "suspend"));
        }

        List<PodSet> podSets(Map<String, Object> o) {
            return List.of(new PodSet("main", SimulatedKueue.parallelism(o), Obj.copy(Obj.map(Obj.at(o, "spec", "template")))));
        }

        Map<String, Object> withTemplates(Map<String, Object> o, Map<String, Map<String, Object>> templates) {
            Map<String, Object> changed = Obj.copy(o);
            if (templates.get("main") != null) {
                Obj.child(changed, "spec").put("template", Obj.copy(templates.get("main")));
            }
            return changed;
        }

        void suspend(Map<String, Object> o, boolean suspend) {
            Obj.child(o, "spec").put("suspend", suspend);
        }

        boolean finished(Map<String, Object> o) {
            return Obj.isTrue(o, "Complete") || Obj.isTrue(o, "Failed");
        }

        @Override
        boolean runningUnqueued(Map<String, Object> o) {
            return !suspended(o) && Obj.at(o, "status", "startTime") != null;
        }
    }

    static final class JobSet extends SuspendableJob {
        String name() { return "jobset.x-k8s.io/jobset"; }
        String collection() { return SimulatedJobSets.COLLECTION; }
        String apiVersion() { return SimulatedJobSets.API_VERSION; }
        String kind() { return "JobSet"; }

        String path(Map<String, Object> o) {
            return SimulatedJobSets.API + "/namespaces/" + Obj.namespace(o) + "/jobsets/" + Obj.name(o);
        }

        boolean suspended(Map<String, Object> o) {
            return Boolean.TRUE.equals(Obj.at(o, "spec", "suspend"));
        }

        List<PodSet> podSets(Map<String, Object> o) {
            List<PodSet> out = new ArrayList<>();
            for (Object r : Obj.list(Obj.at(o, "spec", "replicatedJobs"))) {
                Map<String, Object> rj = Obj.map(r);
                Map<String, Object> jobSpec = Obj.map(Obj.at(rj, "template", "spec"));
                long perJob = SimulatedKueue.parallelism(Map.of("spec", jobSpec));
                out.add(new PodSet(String.valueOf(rj.get("name")), Obj.num(rj, 1, "replicas") * perJob,
                        Obj.copy(Obj.map(jobSpec.get("template")))));
            }
            return out;
        }

        void suspend(Map<String, Object> o, boolean suspend) {
            Obj.child(o, "spec").put("suspend", suspend);
        }

        Map<String, Object> withTemplates(Map<String, Object> o, Map<String, Map<String, Object>> templates) {
            Map<String, Object> changed = Obj.copy(o);
            for (Object r : Obj.list(Obj.at(changed, "spec", "replicatedJobs"))) {
                Map<String, Object> rj = Obj.map(r);
                Map<String, Object> template = templates.get(String.valueOf(rj.get("name")));
                if (template != null) {
                    Obj.child(rj, "template", "spec").put("template", Obj.copy(template));
                }
            }
            return changed;
        }

        boolean finished(Map<String, Object> o) {
            return Obj.isTrue(o, "Completed") || Obj.isTrue(o, "Failed");
        }
    }

    static final class MpiJob extends SuspendableJob {
        private static final List<String> ROLES = List.of("Launcher", "Worker");

        String name() { return "kubeflow.org/mpijob"; }
        String collection() { return SimulatedMpiJobs.COLLECTION; }
        String apiVersion() { return SimulatedMpiJobs.API_VERSION; }
        String kind() { return "MPIJob"; }

        String path(Map<String, Object> o) {
            return SimulatedMpiJobs.API + "/namespaces/" + Obj.namespace(o) + "/mpijobs/" + Obj.name(o);
        }

        boolean suspended(Map<String, Object> o) {
            return Boolean.TRUE.equals(Obj.at(o, "spec", "runPolicy", "suspend"));
        }

        List<PodSet> podSets(Map<String, Object> o) {
            List<PodSet> out = new ArrayList<>();
            for (String role : ROLES) {
                Map<String, Object> spec = Obj.map(Obj.at(o, "spec", "mpiReplicaSpecs", role));
                if (!spec.isEmpty()) {
                    out.add(new PodSet(role.toLowerCase(Locale.ROOT), Obj.num(spec, 1, "replicas"), Obj.copy(Obj.map(spec.get("template")))));
                }
            }
            return out;
        }

        void suspend(Map<String, Object> o, boolean suspend) {
            Obj.child(o, "spec", "runPolicy").put("suspend", suspend);
        }

        Map<String, Object> withTemplates(Map<String, Object> o, Map<String, Map<String, Object>> templates) {
            Map<String, Object> changed = Obj.copy(o);
            for (String role : ROLES) {
                Map<String, Object> template = templates.get(role.toLowerCase(Locale.ROOT));
                Map<String, Object> spec = Obj.map(Obj.at(changed, "spec", "mpiReplicaSpecs", role));
                if (template != null && !spec.isEmpty()) {
                    spec.put("template", Obj.copy(template));
                }
            }
            return changed;
        }

        boolean finished(Map<String, Object> o) {
            return Obj.isTrue(o, "Succeeded") || Obj.isTrue(o, "Failed");
        }
    }

    /** Kueue's pod integration: a pod its webhook gated is one Workload, admitted by lifting its gate. */
    static final class Pod extends Framework {
        String name() { return "pod"; }
        String collection() { return "/api/v1/pods"; }
        String apiVersion() { return "v1"; }
        String kind() { return "Pod"; }
        String path(Map<String, Object> o) { return SimulatedPods.podPath(o); }

        @Override
        boolean manages(Map<String, Object> o, List<String> managedKinds) {
            return "true".equals(Obj.labels(o).get(MANAGED_LABEL)) && super.manages(o, managedKinds);
        }

        boolean suspended(Map<String, Object> o) {
            return Obj.list(Obj.at(o, "spec", "schedulingGates")).stream()
                    .anyMatch(g -> ADMISSION_GATE.equals(Obj.map(g).get("name")));
        }

        List<PodSet> podSets(Map<String, Object> o) {
            Map<String, Object> template = new LinkedHashMap<>();
            Map<String, Object> metadata = new LinkedHashMap<>();
            metadata.put("labels", Obj.copy(Obj.labels(o)));
            metadata.put("annotations", Obj.copy(Obj.annotations(o)));
            template.put("metadata", metadata);
            Map<String, Object> spec = Obj.copy(Obj.map(o.get("spec")));
            spec.remove("schedulingGates");
            template.put("spec", spec);
            return List.of(new PodSet("main", 1, template));
        }

        /** The gate lifted, and what admission adds to the template (node selector, tolerations, annotations) on the pod. */
        Map<String, Object> started(Map<String, Object> o, Map<String, Map<String, Object>> templates) {
            Map<String, Object> changed = Obj.copy(o);
            Map<String, Object> spec = Obj.child(changed, "spec");
            List<Object> gates = new ArrayList<>(Obj.list(spec.get("schedulingGates")));
            gates.removeIf(g -> ADMISSION_GATE.equals(Obj.map(g).get("name")));
            if (gates.isEmpty()) {
                spec.remove("schedulingGates");
            } else {
                spec.put("schedulingGates", gates);
            }
            Map<String, Object> template = templates.get("main");
            if (template != null) {
                Obj.child(spec, "nodeSelector").putAll(Obj.map(Obj.at(template, "spec", "nodeSelector")));
                if (Obj.map(spec.get("nodeSelector")).isEmpty()) {
                    spec.remove("nodeSelector");
                }
                List<Object> tolerations = Obj.childList(spec, "tolerations");
                for (Object t : Obj.list(Obj.at(template, "spec", "tolerations"))) {
                    if (!tolerations.contains(t)) {
                        tolerations.add(Obj.copy(t));
                    }
                }
                if (tolerations.isEmpty()) {
                    spec.remove("tolerations");
                }
                Obj.child(changed, "metadata", "annotations").putAll(Obj.map(Obj.at(template, "metadata", "annotations")));
            }
            return changed;
        }

        Map<String, Object> stopped(Map<String, Object> o, List<PodSet> original) {
            return null;
        }

        boolean finished(Map<String, Object> o) {
            return SimulatedDeployments.terminal(o);
        }
    }
}
