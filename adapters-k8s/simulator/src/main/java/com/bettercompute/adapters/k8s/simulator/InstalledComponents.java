package com.bettercompute.adapters.k8s.simulator;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which add-on controllers run in one simulated cluster, read from its objects as a cluster would show them:
 * a component runs when its CustomResourceDefinitions are served and its controller Deployment has an
 * available replica — so nothing runs that nobody installed, and a controller whose pod cannot run is not
 * running. Kueue's configuration is read as Kueue reads it at start: the {@code controller_manager_config.yaml}
 * of its ConfigMap and the {@code --feature-gates} of its Deployment.
 */
final class InstalledComponents {
    /** An add-on as upstream installs it: its namespace, its controller Deployment, the CRDs it serves, its webhook Service. */
    record Component(String name, String namespace, String deployment, List<String> crds, String webhookService) {}

    static final Component KUEUE = new Component("Kueue", "kueue-system", "kueue-controller-manager",
            List.of("workloads.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io",
                    "resourceflavors.kueue.x-k8s.io", "admissionchecks.kueue.x-k8s.io",
                    "provisioningrequestconfigs.kueue.x-k8s.io", "workloadpriorityclasses.kueue.x-k8s.io"),
            "kueue-webhook-service");
    static final Component JOBSET = new Component("JobSet", "jobset-system", "jobset-controller-manager",
            List.of("jobsets.jobset.x-k8s.io"), "jobset-webhook-service");
    static final Component MPI_OPERATOR = new Component("the MPI Operator", "mpi-operator", "mpi-operator",
            List.of("mpijobs.kubeflow.org"), null);

    static final String KUEUE_CONFIG_MAP = "kueue-manager-config";
    static final String KUEUE_CONFIG_KEY = "controller_manager_config.yaml";
    /** Kueue's integrations when its configuration names none (its built-in default). */
    static final Set<String> DEFAULT_FRAMEWORKS = Set.of("batch/job");
    private static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

    /** What Kueue was started with. */
    record KueueConfig(Set<String> frameworks, boolean manageJobsWithoutQueueName, boolean localQueueDefaulting) {
        KueueConfig {
            frameworks = Set.copyOf(frameworks);
        }

        boolean integrates(String framework) {
            return frameworks.contains(framework);
        }
    }

    /** The components running now and, when Kueue runs, its configuration (null otherwise). */
    record Running(boolean kueue, boolean jobSet, boolean mpiOperator, KueueConfig kueueConfig) {
        static final Running NONE = new Running(false, false, false, null);

        /** Whether the component answers its webhook Service (no Service, no endpoints: it does not). */
        boolean serves(String namespace, String service) {
            return kueue && KUEUE.namespace().equals(namespace) && KUEUE.webhookService().equals(service)
                    || jobSet && JOBSET.namespace().equals(namespace) && JOBSET.webhookService().equals(service);
        }
    }

    private InstalledComponents() {}

    static Running read(ClusterStore store) {
        Set<String> crds = new LinkedHashSet<>();
        for (Map<String, Object> crd : store.list(CRDS)) {
            crds.add(Obj.name(crd));
        }
        boolean kueue = running(store, crds, KUEUE);
        return new Running(kueue, running(store, crds, JOBSET), running(store, crds, MPI_OPERATOR),
                kueue ? kueueConfig(store) : null);
    }

    private static boolean running(ClusterStore store, Set<String> crds, Component c) {
        if (!crds.containsAll(c.crds())) {
            return false;
        }
        Map<String, Object> deployment = store.get(SimulatedDeployments.DEPLOYMENTS_API + "/namespaces/" + c.namespace()
                + "/deployments/" + c.deployment());
        return deployment != null && Obj.num(deployment, 0, "status", "availableReplicas") > 0;
    }

    private static KueueConfig kueueConfig(ClusterStore store) {
        Map<String, Object> configMap = store.get("/api/v1/namespaces/" + KUEUE.namespace() + "/configmaps/" + KUEUE_CONFIG_MAP);
        Object text = configMap == null ? null : Obj.map(configMap.get("data")).get(KUEUE_CONFIG_KEY);
        Map<String, Object> config = Map.of();
        if (text != null) {
            try {
                config = Obj.map(store.parse(text.toString()));
            } catch (RuntimeException e) {
                // Kueue would not start on a configuration it cannot read; the simulation takes its defaults
                config = Map.of();
            }
        }
        List<Object> named = Obj.list(Obj.at(config, "integrations", "frameworks"));
        Set<String> frameworks = new LinkedHashSet<>();
        named.forEach(f -> frameworks.add(String.valueOf(f)));
        Map<String, Object> deployment = store.get(SimulatedDeployments.DEPLOYMENTS_API + "/namespaces/" + KUEUE.namespace()
                + "/deployments/" + KUEUE.deployment());
        // LocalQueueDefaulting is on by default in the Kueue releases the platform pins; a gate can turn it off
        boolean defaulting = !featureGate(deployment, "LocalQueueDefaulting", "false");
        return new KueueConfig(frameworks.isEmpty() ? DEFAULT_FRAMEWORKS : frameworks,
                Boolean.TRUE.equals(config.get("manageJobsWithoutQueueName")), defaulting);
    }

    /** Whether the Deployment's containers pass {@code --feature-gates} with {@code gate=value}. */
    private static boolean featureGate(Map<String, Object> deployment, String gate, String value) {
        if (deployment == null) {
            return false;
        }
        for (Object c : Obj.list(Obj.at(deployment, "spec", "template", "spec", "containers"))) {
            for (Object arg : Obj.list(Obj.map(c).get("args"))) {
                String a = String.valueOf(arg);
                if (a.startsWith("--feature-gates=")) {
                    for (String pair : a.substring("--feature-gates=".length()).split(",")) {
                        if (pair.trim().equals(gate + "=" + value)) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }
}
