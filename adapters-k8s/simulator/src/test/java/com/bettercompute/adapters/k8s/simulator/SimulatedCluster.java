package com.bettercompute.adapters.k8s.simulator;

import com.bettercompute.application.fakes.MutableClock;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One simulated cluster for the simulator's own tests: its node pools held here (as the GKE simulator
 * would report them), a mutable clock, and a fabric8 client with the platform's token. {@link #installMarket}
 * puts in the objects the platform installs in a market-managed cluster — written here from Kueue's
 * documented shapes, not from the product's code, so these tests say what the simulator answers to.
 */
final class SimulatedCluster implements AutoCloseable {
    static final String PROJECT = "prj";
    static final String LOCATION = "us-central1-a";
    static final String REQUEST_LABEL = "nationalcompute.com/request";
    /** The pool of the cluster's one CPU-only, untainted node. */
    static final String CPU_WORKER = "cpu-worker";
    static final SimulatedKubernetesApis.Taint GPU_WORKER = new SimulatedKubernetesApis.Taint("nationalcompute.com/gpu-worker", "true", "NoSchedule");
    private static final java.util.concurrent.atomic.AtomicInteger NEXT = new java.util.concurrent.atomic.AtomicInteger();

    /** One simulated API server (its start is the slow part) for many clusters, each test its own cluster. */
    static final class World implements AutoCloseable {
        final MutableClock clock;
        final Map<String, Map<String, SimulatedKubernetesApis.NodePool>> clusters;
        /** The clusters with Identity Service for GKE enabled, as the GKE simulator would say. */
        final java.util.Set<String> identityService = ConcurrentHashMap.newKeySet();
        final SimulatedKubernetesApis apis;

        World(SimulatedKubernetesApis.Settings settings) {
            this(settings, null, new MutableClock(), new ConcurrentHashMap<>());
        }

        /** A world keeping its state in {@code directory}, with this clock and these clusters (a restarted one shares them). */
        World(SimulatedKubernetesApis.Settings settings, java.nio.file.Path directory, MutableClock clock,
              Map<String, Map<String, SimulatedKubernetesApis.NodePool>> clusters) {
            this.clock = clock;
            this.clusters = clusters;
            apis = SimulatedKubernetesApis.start(clock, new SimulatedKubernetesApis.NodeSource() {
                @Override
                public Map<String, SimulatedKubernetesApis.NodePool> nodePools(String project, String location, String cluster) {
                    Map<String, SimulatedKubernetesApis.NodePool> pools = clusters.get(cluster);
                    return pools == null ? null : Map.copyOf(pools);
                }

                @Override
                public boolean identityService(String project, String location, String cluster) {
                    return identityService.contains(cluster);
                }
            }, directory, settings);
        }

        @Override
        public void close() {
            apis.close();
        }
    }

    final String name;
    final MutableClock clock;
    final Map<String, SimulatedKubernetesApis.NodePool> pools = new ConcurrentHashMap<>();
    final SimulatedKubernetesApis apis;
    final KubernetesClient client;

    /** The same cluster in a restarted world. */
    SimulatedCluster(World world, SimulatedCluster before) {
        this.name = before.name;
        clock = world.clock;
        apis = world.apis;
        pools.putAll(before.pools);
        world.clusters.put(name, pools);
        client = clientWith(apis.adminToken());
    }

    SimulatedCluster(World world) {
        this.name = "c" + NEXT.incrementAndGet();
        clock = world.clock;
        apis = world.apis;
        pools.put(CPU_WORKER, new SimulatedKubernetesApis.NodePool(1, Map.of(), List.of(), 0, "e2-standard-4"));
        world.clusters.put(name, pools);
        client = clientWith(apis.adminToken());
    }

    KubernetesClient clientWith(String token) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://" + apis.endpointFor(PROJECT, LOCATION, name))
                .withCaCertData(apis.caCertificateBase64()).withOauthToken(token).withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** Identity Service for GKE turned on at the provider: the cluster's API shows its objects from the next round. */
    void enableIdentityService(World world) {
        world.identityService.add(name);
        apis.step();
    }

    /**
     * The {@code default} ClientConfig's authentication as Identity Service for GKE documents it, trusting {@code issuer}'s
     * ID tokens for this cluster's audience: user {@code nc:<sub>}, groups the {@code groups} claim.
     */
    @SuppressWarnings("unchecked")
    void trust(java.net.URI issuer) {
        client.genericKubernetesResources("authentication.gke.io/v2alpha1", "ClientConfig").inNamespace("kube-public")
                .withName("default").edit(c -> {
                    ((Map<String, Object>) c.getAdditionalProperties().get("spec")).put("authentication", List.of(Map.of(
                            "name", "platform", "oidc", Map.of("clientID", SimulatedKubernetesApis.audienceOf(PROJECT, LOCATION, name),
                                    "issuerURI", issuer.toString(), "userClaim", "sub", "userPrefix", "nc:", "groupsClaim", "groups"))));
                    return c;
                });
    }

    /** A market grant at the provider: a pool of GPU nodes labelled for the request, tainted for GPU work. */
    void grant(String pool, int nodes, String request) {
        pools.put(pool, new SimulatedKubernetesApis.NodePool(nodes, Map.of("nationalcompute.com/market-node", "true",
                "nationalcompute.com/node-class", "h100", REQUEST_LABEL, request), List.of(GPU_WORKER), 8, "a3-highgpu-8g"));
        apis.step();
    }

    /** A base load block node at the provider: a pool of one GPU node, labelled for the block, tainted for GPU work. */
    void blockNode(String pool) {
        pools.put(pool, new SimulatedKubernetesApis.NodePool(1, Map.of("nationalcompute.com/market-node", "true",
                "nationalcompute.com/node-class", "h100", "nationalcompute.com/base-load-block", "true"), List.of(GPU_WORKER), 8,
                "a3-highgpu-8g"));
        apis.step();
    }

    void advance(Duration by) {
        clock.advance(by);
        apis.step();
    }

    /**
     * Kueue as its release installs it, reduced to what the simulated cluster reads: its CRDs, its namespace, its
     * configuration (these integrations) and its controller Deployment, which runs on the CPU worker.
     */
    void installKueue(String... frameworks) {
        KueueCrds.all().forEach(crd -> client.resource(client.getKubernetesSerialization().asJson(crd)).create());
        apply("""
                apiVersion: v1
                kind: Namespace
                metadata: {name: kueue-system}
                """);
        apply("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: kueue-manager-config, namespace: kueue-system}
                data:
                  controller_manager_config.yaml: |
                    apiVersion: config.kueue.x-k8s.io/v1beta1
                    kind: Configuration
                    manageJobsWithoutQueueName: false
                    integrations:
                      frameworks: [%s]
                """.formatted(String.join(", ", frameworks)));
        controller("kueue-system", "kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.13.4");
    }

    /** Kueue's mutating webhook for the kinds it integrates, reached through its Service as its release registers it. */
    void installKueueWebhook() {
        StringBuilder webhooks = new StringBuilder();
        for (String[] rule : new String[][] {{"batch", "v1", "jobs"}, {"jobset.x-k8s.io", "v1alpha2", "jobsets"},
                {"kubeflow.org", "v2beta1", "mpijobs"}, {"", "v1", "pods"}, {"apps", "v1", "deployments"}, {"apps", "v1", "statefulsets"}}) {
            webhooks.append("""
                    - name: m%3$s.kb.io
                      clientConfig: {service: {name: kueue-webhook-service, namespace: kueue-system, path: /mutate-%3$s}}
                      rules: [{apiGroups: ["%1$s"], apiVersions: [%2$s], resources: [%3$s], operations: [CREATE]}]
                      namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kueue-system]}]}
                      failurePolicy: Fail
                      sideEffects: None
                      admissionReviewVersions: [v1]
                    """.formatted(rule[0], rule[1], rule[2]));
        }
        apply("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: MutatingWebhookConfiguration
                metadata: {name: kueue-mutating-webhook-configuration}
                webhooks:
                """ + webhooks);
    }

    /** JobSet: its CRD and its controller. */
    void installJobSet() {
        crd("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets");
        apply("apiVersion: v1\nkind: Namespace\nmetadata: {name: jobset-system}\n");
        controller("jobset-system", "jobset-controller-manager", "registry.k8s.io/jobset/jobset:v0.8.2");
    }

    /** The MPI Operator: its CRD and its controller. */
    void installMpiOperator() {
        crd("kubeflow.org", "v2beta1", "MPIJob", "mpijobs");
        apply("apiVersion: v1\nkind: Namespace\nmetadata: {name: mpi-operator}\n");
        controller("mpi-operator", "mpi-operator", "mpioperator/mpi-operator:0.6.0");
    }

    private void crd(String group, String version, String kind, String plural) {
        apply("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: %4$s.%1$s}
                spec:
                  group: %1$s
                  names: {kind: %3$s, listKind: %3$sList, plural: %4$s, singular: %5$s}
                  scope: Namespaced
                  versions:
                  - name: %2$s
                    served: true
                    storage: true
                    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
                    subresources: {status: {}}
                """.formatted(group, version, kind, plural, kind.toLowerCase(java.util.Locale.ROOT)));
    }

    /** An add-on's controller Deployment of one replica. */
    void controller(String namespace, String name, String image) {
        apply("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %2$s, namespace: %1$s}
                spec:
                  replicas: 1
                  selector: {matchLabels: {control-plane: %2$s}}
                  template:
                    metadata: {labels: {control-plane: %2$s}}
                    spec:
                      containers: [{name: manager, image: "%3$s"}]
                """.formatted(namespace, name, image));
    }

    /** Kueue (the Job integration) and the platform's objects in a market-managed cluster. */
    void installMarket(int gpuQuota) {
        installKueue("batch/job");
        installMarketObjects(gpuQuota);
    }

    /** The platform's objects in a market-managed cluster: the ProvisioningRequest CRD, one flavor, the ClusterQueue and the rest. */
    void installMarketObjects(int gpuQuota) {
        apply("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: provisioningrequests.autoscaling.x-k8s.io}
                spec:
                  group: autoscaling.x-k8s.io
                  names: {kind: ProvisioningRequest, listKind: ProvisioningRequestList, plural: provisioningrequests, singular: provisioningrequest, shortNames: [provreq, provreqs]}
                  scope: Namespaced
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
                    subresources: {status: {}}
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: ResourceFlavor
                metadata: {name: h100}
                spec:
                  nodeLabels: {nationalcompute.com/market-node: "true", nationalcompute.com/node-class: h100}
                  tolerations: [{key: nationalcompute.com/gpu-worker, operator: Equal, value: "true", effect: NoSchedule}]
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: ClusterQueue
                metadata: {name: market}
                spec:
                  namespaceSelector: {}
                  resourceGroups:
                  - coveredResources: [nvidia.com/gpu]
                    flavors:
                    - name: h100
                      resources: [{name: nvidia.com/gpu, nominalQuota: %d}]
                  admissionChecksStrategy:
                    admissionChecks: [{name: market, onFlavors: [h100]}]
                """.formatted(gpuQuota));
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: LocalQueue
                metadata: {name: default, namespace: default}
                spec: {clusterQueue: market}
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: AdmissionCheck
                metadata: {name: market}
                spec:
                  controllerName: kueue.x-k8s.io/provisioning-request
                  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: market}
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta1
                kind: ProvisioningRequestConfig
                metadata: {name: market}
                spec:
                  provisioningClassName: market.nationalcompute.com
                  podSetUpdates:
                    nodeSelector:
                    - {key: nationalcompute.com/request, valueFromProvisioningClassDetail: nationalcompute.com/request}
                    - {key: cloud.google.com/gke-nodepool, valueFromProvisioningClassDetail: nationalcompute.com/block-node}
                  retryStrategy: {backoffLimitCount: 100, backoffBaseSeconds: 60, backoffMaxSeconds: 1800}
                """);
        for (String[] wpc : new String[][] {{"low", "100"}, {"normal", "500"}, {"high", "1000"}}) {
            apply("""
                    apiVersion: kueue.x-k8s.io/v1beta1
                    kind: WorkloadPriorityClass
                    metadata: {name: %s}
                    value: %s
                    """.formatted(wpc[0], wpc[1]));
        }
    }

    /** A Job of {@code pods} pods with {@code gpus} GPUs each, at a priority, running for a while (null: until stopped). */
    void job(String name, int pods, int gpus, String priority, String runsFor) {
        job(name, pods, gpus, priority, runsFor, null);
    }

    /** The same with the Job's {@code podReplacementPolicy} (null: the default, TerminatingOrFailed). */
    void job(String name, int pods, int gpus, String priority, String runsFor, String podReplacementPolicy) {
        apply("""
                apiVersion: batch/v1
                kind: Job
                metadata:
                  name: %s
                  namespace: default
                  labels: {kueue.x-k8s.io/priority-class: %s}
                  annotations: {%s}
                spec:
                  parallelism: %d
                  completions: %d
                  %s
                  template:
                    spec:
                      restartPolicy: Never
                      terminationGracePeriodSeconds: 60
                      containers:
                      - name: train
                        image: trainer:1
                        resources: {limits: {nvidia.com/gpu: %d}}
                """.formatted(name, priority, runsFor == null ? "" : "sim.better-compute.dev/runs-for: " + runsFor, pods, pods,
                podReplacementPolicy == null ? "" : "podReplacementPolicy: " + podReplacementPolicy, gpus));
    }

    void apply(String yaml) {
        client.resource(yaml).create();
    }

    GenericKubernetesResource get(String apiVersion, String kind, String name) {
        return client.genericKubernetesResources(apiVersion, kind).inNamespace("default").withName(name).get();
    }

    List<GenericKubernetesResource> list(String apiVersion, String kind) {
        return client.genericKubernetesResources(apiVersion, kind).inNamespace("default").list().getItems();
    }

    GenericKubernetesResource workloadOf(String job) {
        return list("kueue.x-k8s.io/v1beta1", "Workload").stream()
                .filter(w -> w.getMetadata().getOwnerReferences().get(0).getName().equals(job)).findFirst().orElse(null);
    }

    /** Writes a request's status as the market's provisioner would: conditions (type, status, reason, message) and details. */
    void provisioningStatus(String request, Map<String, String> details, String[]... conditions) {
        GenericKubernetesResource pr = get("autoscaling.x-k8s.io/v1", "ProvisioningRequest", request);
        List<Map<String, Object>> list = java.util.Arrays.stream(conditions).map(c -> Map.<String, Object>of("type", c[0], "status", c[1],
                "reason", c[2], "message", c[3], "lastTransitionTime", clock.instant().toString())).toList();
        pr.setAdditionalProperty("status", details.isEmpty() ? Map.of("conditions", list)
                : Map.of("conditions", list, "provisioningClassDetails", details));
        client.genericKubernetesResources("autoscaling.x-k8s.io/v1", "ProvisioningRequest").inNamespace("default").resource(pr).updateStatus();
    }

    /** The HTTP status the call failed with, or null when it succeeded. */
    static Integer code(java.util.function.Supplier<?> call) {
        try {
            call.get();
            return null;
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return e.getCode();
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
