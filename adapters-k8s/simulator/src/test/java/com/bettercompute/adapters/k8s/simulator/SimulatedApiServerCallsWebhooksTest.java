package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The simulated cluster's API server calls the admission webhooks registered in the cluster as
 * kube-apiserver does — matched by their rules and selectors, the AdmissionReview v1 it sends, the
 * mutating webhooks' JSON Patch stored, denials and failed calls answered with kube-apiserver's Status —
 * driven with a fabric8 client and webhooks of this test's own ({@link TestWebhook}).
 */
class SimulatedApiServerCallsWebhooksTest {
    private static SimulatedCluster.World world;
    private SimulatedCluster cluster;
    private KubernetesClient client;
    private final List<TestWebhook> webhooks = new ArrayList<>();

    @BeforeAll
    static void startWorld() {
        world = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
    }

    @AfterAll
    static void stopWorld() {
        world.close();
    }

    @BeforeEach
    void newCluster() {
        cluster = new SimulatedCluster(world);
        client = cluster.client;
    }

    @AfterEach
    void stop() {
        webhooks.forEach(TestWebhook::close);
        cluster.close();
    }

    private TestWebhook webhook(Function<Map<String, Object>, Map<String, Object>> answer) {
        TestWebhook webhook = new TestWebhook(answer);
        webhooks.add(webhook);
        return webhook;
    }

    /** Registers one webhook: {@code fields} are its further fields as YAML flow-mapping entries (", failurePolicy: Ignore"). */
    private void register(String kind, String name, String url, String caBundle, String rules, String fields) {
        cluster.apply("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: %s
                metadata: {name: %s}
                webhooks:
                - {name: %s, clientConfig: {url: "%s", caBundle: "%s"}, rules: %s, sideEffects: None, admissionReviewVersions: [v1]%s}
                """.formatted(kind, name.replace('.', '-'), name, url, caBundle, rules, fields));
    }

    private void validating(String name, TestWebhook webhook, String rules, String fields) {
        register("ValidatingWebhookConfiguration", name, webhook.url("/validate"), webhook.caBundle(), rules, fields);
    }

    private void mutating(String name, TestWebhook webhook, String rules, String fields) {
        register("MutatingWebhookConfiguration", name, webhook.url("/mutate"), webhook.caBundle(), rules, fields);
    }

    private static String rule(String groups, String resources, String operations) {
        return "[{apiGroups: [%s], apiVersions: [\"*\"], resources: [%s], operations: [%s]}]".formatted(groups, resources, operations);
    }

    private static final String JOBS = rule("batch", "jobs", "\"*\"");
    private static final String CONFIGMAPS = rule("\"\"", "configmaps", "\"*\"");

    private static final String JOB = """
            apiVersion: batch/v1
            kind: Job
            metadata: {name: %s, namespace: default, labels: {team: ml}}
            spec:
              parallelism: %d
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: main, image: trainer:1}]
            """;

    private void job(String name, int pods) {
        cluster.apply(JOB.formatted(name, pods));
    }

    private ConfigMap configMap(String namespace, String name, Map<String, String> labels) {
        return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).withLabels(labels).endMetadata().addToData("k", "v").build()).create();
    }

    // ---------------------------------------------------------------- denials

    @ParameterizedTest(name = "{0} → {1} {2}")
    @CsvSource(delimiter = '|', textBlock = """
            {"message": "JobSizeTooSmall: 4 GPUs per pod; this cluster has 8 per node"} | 400 | ''            | admission webhook "jobs.test.dev" denied the request: JobSizeTooSmall: 4 GPUs per pod; this cluster has 8 per node
            {"code": 403, "reason": "Forbidden", "message": "StationOwned"}            | 403 | Forbidden     | admission webhook "jobs.test.dev" denied the request: StationOwned
            {"reason": "BalanceTooLow"}                                                 | 400 | BalanceTooLow | admission webhook "jobs.test.dev" denied the request: BalanceTooLow
            {}                                                                          | 400 | ''            | admission webhook "jobs.test.dev" denied the request without explanation
            {"code": 200, "message": "no"}                                              | 400 | ''            | admission webhook "jobs.test.dev" denied the request: no
            """)
    void a_denial_refuses_the_write_with_kube_apiservers_status(String status, int code, String reason, String message) {
        @SuppressWarnings("unchecked")
        Map<String, Object> given = new io.fabric8.kubernetes.client.utils.KubernetesSerialization().unmarshal(status, Map.class);
        validating("jobs.test.dev", webhook(r -> TestWebhook.deny(given)), JOBS, "");

        assertThatThrownBy(() -> job("train", 1)).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(code);
            assertThat(e.getStatus().getMessage()).isEqualTo(message);
            assertThat(e.getStatus().getReason()).isEqualTo(reason.isEmpty() ? null : reason);
            assertThat(e.getStatus().getStatus()).isEqualTo("Failure");
        });
        assertThat(client.batch().v1().jobs().inNamespace("default").withName("train").get()).isNull();
    }

    // ---------------------------------------------------------------- the AdmissionReview

    @Test
    void the_review_names_the_object_the_operation_and_the_caller_as_kube_apiserver_does() {
        TestWebhook hook = webhook(r -> TestWebhook.allow());
        validating("jobs.test.dev", hook, JOBS, "");

        job("train", 0);
        client.batch().v1().jobs().inNamespace("default").withName("train")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"stage\":\"two\"}}}");
        client.batch().v1().jobs().inNamespace("default").withName("train").delete();

        assertThat(hook.operations()).containsExactly("CREATE", "UPDATE", "DELETE");
        Map<String, Object> create = hook.requests.get(0);
        assertThat(create.get("uid").toString()).matches("[0-9a-f-]{36}");
        assertThat(create.get("kind")).isEqualTo(Map.of("group", "batch", "version", "v1", "kind", "Job"));
        assertThat(create.get("resource")).isEqualTo(Map.of("group", "batch", "version", "v1", "resource", "jobs"));
        assertThat(create.get("requestKind")).isEqualTo(create.get("kind"));
        assertThat(create.get("requestResource")).isEqualTo(create.get("resource"));
        assertThat(create).containsEntry("name", "train").containsEntry("namespace", "default").containsEntry("dryRun", false)
                .doesNotContainKey("subResource");
        assertThat(Obj.map(create.get("userInfo"))).containsEntry("username", SimulatedKubernetesApis.PLATFORM_USER);
        assertThat(Obj.str(Obj.map(create.get("object")), "metadata", "labels", "team")).isEqualTo("ml");
        assertThat(create.get("oldObject")).isNull();
        assertThat(Obj.map(create.get("options"))).containsEntry("kind", "CreateOptions").containsEntry("apiVersion", "meta.k8s.io/v1");

        Map<String, Object> update = hook.requests.get(1);
        assertThat(Obj.str(Obj.map(update.get("object")), "metadata", "labels", "stage")).isEqualTo("two");
        assertThat(Obj.str(Obj.map(update.get("oldObject")), "metadata", "labels", "stage")).isNull();
        assertThat(Obj.map(update.get("options"))).containsEntry("kind", "UpdateOptions");

        Map<String, Object> delete = hook.requests.get(2);
        assertThat(delete.get("object")).isNull();
        assertThat(Obj.str(Obj.map(delete.get("oldObject")), "metadata", "labels", "stage")).isEqualTo("two");
        assertThat(Obj.map(delete.get("options"))).containsEntry("kind", "DeleteOptions");
    }

    @Test
    void a_service_accounts_request_carries_its_user_and_groups() {
        TestWebhook hook = webhook(r -> TestWebhook.allow());
        validating("configmaps.test.dev", hook, CONFIGMAPS, "");
        String uid = client.serviceAccounts().inNamespace("default").resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                .withNewMetadata().withName("ci").endMetadata().build()).create().getMetadata().getUid();
        client.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                .withNewMetadata().withName("ci-edit").endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "edit")
                .addNewSubject().withKind("ServiceAccount").withName("ci").withNamespace("default").endSubject().build()).create();
        String token = cluster.apis.mint(SimulatedCluster.PROJECT, SimulatedCluster.LOCATION, cluster.name, "default", "ci", Duration.ofHours(1)).token();

        try (KubernetesClient ci = cluster.clientWith(token)) {
            ci.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("settings").endMetadata().build()).create();
        }

        assertThat(hook.requests).singleElement().satisfies(r -> assertThat(r.get("userInfo")).isEqualTo(Map.of(
                "username", "system:serviceaccount:default:ci", "uid", uid,
                "groups", List.of("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"))));
    }

    // ---------------------------------------------------------------- mutation

    @Test
    void a_mutating_webhooks_patch_is_stored_and_the_validating_webhooks_see_the_mutated_object() {
        mutating("jobs.mutate.test.dev", webhook(r -> TestWebhook.patch("""
                [{"op": "add", "path": "/metadata/labels/kueue.x-k8s.io~1queue-name", "value": "default"},
                 {"op": "add", "path": "/spec/suspend", "value": true}]
                """)), rule("batch", "jobs", "CREATE"), "");
        TestWebhook validator = webhook(r -> TestWebhook.allow());
        validating("jobs.validate.test.dev", validator, JOBS, "");

        job("train", 1);

        Job stored = client.batch().v1().jobs().inNamespace("default").withName("train").get();
        assertThat(stored.getMetadata().getLabels()).containsEntry("kueue.x-k8s.io/queue-name", "default").containsEntry("team", "ml");
        assertThat(stored.getSpec().getSuspend()).isTrue();
        assertThat(validator.requests).singleElement()
                .satisfies(r -> assertThat(Obj.at(Obj.map(r.get("object")), "spec", "suspend")).isEqualTo(true));
    }

    enum Write { PUT, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH }

    @ParameterizedTest
    @EnumSource(Write.class)
    void every_kind_of_update_is_admitted_and_stores_the_mutated_object(Write write) {
        configMap("default", "settings", Map.of("team", "ml"));
        TestWebhook mutator = webhook(r -> TestWebhook.patch("[{\"op\": \"add\", \"path\": \"/data/stamped\", \"value\": \"yes\"}]"));
        mutating("configmaps.test.dev", mutator, rule("\"\"", "configmaps", "UPDATE"), "");

        var resource = client.configMaps().inNamespace("default").withName("settings");
        switch (write) {
            case PUT -> client.configMaps().inNamespace("default").resource(new ConfigMapBuilder(resource.get()).addToData("k", "changed").build()).update();
            case JSON_PATCH -> resource.edit(c -> new ConfigMapBuilder(c).addToData("k", "changed").build());
            case MERGE_PATCH -> resource.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"k\":\"changed\"}}");
            case STRATEGIC_MERGE_PATCH -> resource.patch(PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"data\":{\"k\":\"changed\"}}");
        }

        assertThat(resource.get().getData()).containsEntry("k", "changed").containsEntry("stamped", "yes");
        assertThat(mutator.requests).singleElement().satisfies(r -> {
            assertThat(r.get("operation")).isEqualTo("UPDATE");
            assertThat(Obj.str(Obj.map(r.get("oldObject")), "data", "k")).isEqualTo("v");
            assertThat(Obj.str(Obj.map(r.get("object")), "data", "k")).isEqualTo("changed");
        });
    }

    // ---------------------------------------------------------------- the Job controller's pods

    @Test
    void pods_the_job_controller_makes_are_admitted_as_the_job_controller_and_mutated() {
        TestWebhook tolerations = webhook(r -> TestWebhook.patch("""
                [{"op": "add", "path": "/spec/tolerations", "value": [{"key": "nationalcompute.com/gpu-worker", "operator": "Exists", "effect": "NoSchedule"}]}]
                """));
        mutating("pods.test.dev", tolerations, rule("\"\"", "pods", "CREATE"), "");

        job("train", 2);

        List<Pod> pods = client.pods().inNamespace("default").withLabel("job-name", "train").list().getItems();
        assertThat(pods).hasSize(2).allSatisfy(p -> assertThat(p.getSpec().getTolerations())
                .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nationalcompute.com/gpu-worker")));
        assertThat(tolerations.requests).hasSize(2).allSatisfy(r -> {
            assertThat(Obj.map(r.get("userInfo"))).containsEntry("username", "system:serviceaccount:kube-system:job-controller");
            assertThat(r.get("kind")).isEqualTo(Map.of("group", "", "version", "v1", "kind", "Pod"));
        });
    }

    @Test
    void a_refused_pod_is_not_made_its_job_gets_one_FailedCreate_event_and_the_job_controller_tries_again_later() {
        TestWebhook refusing = webhook(r -> TestWebhook.deny(Map.of("message", "JobSizeTooSmall: 4 GPUs")));
        validating("pods.test.dev", refusing, rule("\"\"", "pods", "CREATE"), "");

        job("train", 3);
        cluster.apis.step();

        assertThat(client.pods().inNamespace("default").list().getItems()).isEmpty();
        assertThat(refusing.requests).hasSize(1);
        List<Event> events = client.v1().events().inNamespace("default").list().getItems();
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getReason()).isEqualTo("FailedCreate");
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("train");
            assertThat(e.getMessage()).isEqualTo("Error creating: admission webhook \"pods.test.dev\" denied the request: JobSizeTooSmall: 4 GPUs");
        });

        cluster.advance(SimulatedPods.REFUSED_BACKOFF);
        assertThat(refusing.requests).hasSize(2);
    }

    @Test
    void a_webhook_may_call_back_into_the_cluster_while_it_is_called() {
        TestWebhook reading = webhook(r -> {
            String labelled = client.namespaces().withName("default").get().getMetadata().getName();
            return labelled.equals(r.get("namespace")) ? TestWebhook.allow() : TestWebhook.deny(Map.of("message", "no namespace"));
        });
        validating("reads.test.dev", reading, CONFIGMAPS, ", timeoutSeconds: 5");

        configMap("default", "settings", Map.of());

        assertThat(client.configMaps().inNamespace("default").withName("settings").get()).isNotNull();
        assertThat(reading.requests).hasSize(1);
    }

    // ---------------------------------------------------------------- failed calls

    @ParameterizedTest(name = "failurePolicy {0}")
    @CsvSource({"'', true", "', failurePolicy: Fail', true", "', failurePolicy: Ignore', false"})
    void a_webhook_that_is_down_refuses_under_Fail_and_is_skipped_under_Ignore(String policy, boolean refused) throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String url = "https://127.0.0.1:" + port + "/validate";
        register("ValidatingWebhookConfiguration", "down.test.dev", url, webhook(r -> TestWebhook.allow()).caBundle(), CONFIGMAPS, policy);

        if (refused) {
            assertThatThrownBy(() -> configMap("default", "settings", Map.of())).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                assertThat(e.getCode()).isEqualTo(500);
                assertThat(e.getStatus().getReason()).isEqualTo("InternalError");
                assertThat(e.getStatus().getMessage()).isEqualTo("Internal error occurred: failed calling webhook \"down.test.dev\": "
                        + "failed to call webhook: Post \"" + url + "?timeout=10s\": dial tcp 127.0.0.1:" + port + ": connect: connection refused");
            });
            assertThat(client.configMaps().inNamespace("default").withName("settings").get()).isNull();
        } else {
            configMap("default", "settings", Map.of());
            assertThat(client.configMaps().inNamespace("default").withName("settings").get()).isNotNull();
        }
    }

    @ParameterizedTest(name = "failurePolicy {0}")
    @CsvSource({"Fail, true", "Ignore, false"})
    void a_webhook_that_does_not_answer_within_timeoutSeconds_fails_the_call(String policy, boolean refused) {
        TestWebhook silent = webhook(r -> null);
        validating("slow.test.dev", silent, CONFIGMAPS, ", timeoutSeconds: 1, failurePolicy: " + policy);

        if (refused) {
            assertThatThrownBy(() -> configMap("default", "settings", Map.of())).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                assertThat(e.getCode()).isEqualTo(500);
                assertThat(e.getStatus().getMessage()).isEqualTo("Internal error occurred: failed calling webhook \"slow.test.dev\": "
                        + "failed to call webhook: Post \"" + silent.url("/validate") + "?timeout=1s\": context deadline exceeded");
            });
        } else {
            configMap("default", "settings", Map.of());
            assertThat(client.configMaps().inNamespace("default").withName("settings").get()).isNotNull();
        }
        assertThat(silent.requests).hasSize(1);
    }

    @Test
    void only_the_caBundle_is_trusted() {
        TestWebhook hook = webhook(r -> TestWebhook.allow());
        TestWebhook other = webhook(r -> TestWebhook.allow());
        register("ValidatingWebhookConfiguration", "wrong-ca.test.dev", hook.url("/validate"), other.caBundle(), CONFIGMAPS, "");

        assertThatThrownBy(() -> configMap("default", "settings", Map.of())).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(500);
            assertThat(e.getStatus().getMessage()).startsWith("Internal error occurred: failed calling webhook \"wrong-ca.test.dev\": "
                    + "failed to call webhook: Post \"" + hook.url("/validate") + "?timeout=10s\": tls: failed to verify certificate");
        });
        assertThat(hook.requests).isEmpty();
    }

    @Test
    void the_webhooks_host_name_is_checked_against_its_certificate() throws IOException {
        InetAddress elsewhere = InetAddress.getByName("127.0.0.2");
        assumeTrue(canBind(elsewhere), "127.0.0.2 cannot be bound here");
        TestWebhook hook = new TestWebhook(elsewhere, r -> TestWebhook.allow());
        webhooks.add(hook);
        validating("host.test.dev", hook, CONFIGMAPS, "");

        assertThatThrownBy(() -> configMap("default", "settings", Map.of())).isInstanceOfSatisfying(KubernetesClientException.class, e ->
                assertThat(e.getStatus().getMessage()).contains("failed calling webhook \"host.test.dev\"").contains("tls: failed to verify certificate"));
        assertThat(hook.requests).isEmpty();
    }

    private static boolean canBind(InetAddress address) {
        try (ServerSocket ignored = new ServerSocket(0, 1, address)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------- matching

    static Stream<Arguments> matching() {
        return Stream.of(
                Arguments.of("the resource and operation named", CONFIGMAPS, "", "default", Map.of(), true),
                Arguments.of("another resource", rule("\"\"", "secrets", "\"*\""), "", "default", Map.of(), false),
                Arguments.of("another operation", rule("\"\"", "configmaps", "UPDATE"), "", "default", Map.of(), false),
                Arguments.of("another group", rule("apps", "configmaps", "CREATE"), "", "default", Map.of(), false),
                Arguments.of("every resource", rule("\"*\"", "\"*\"", "CREATE"), "", "default", Map.of(), true),
                Arguments.of("subresources only", rule("\"*\"", "\"*/status\"", "\"*\""), "", "default", Map.of(), false),
                Arguments.of("cluster-scoped only", "[{apiGroups: [\"\"], apiVersions: [v1], resources: [configmaps], operations: [CREATE], scope: Cluster}]",
                        "", "default", Map.of(), false),
                Arguments.of("namespaced only", "[{apiGroups: [\"\"], apiVersions: [v1], resources: [configmaps], operations: [CREATE], scope: Namespaced}]",
                        "", "default", Map.of(), true),
                Arguments.of("object labels that match", CONFIGMAPS, ", objectSelector: {matchLabels: {team: ml}}", "default", Map.of("team", "ml"), true),
                Arguments.of("object labels that do not", CONFIGMAPS, ", objectSelector: {matchLabels: {team: ml}}", "default", Map.of("team", "web"), false),
                Arguments.of("an object expression", CONFIGMAPS, ", objectSelector: {matchExpressions: [{key: team, operator: NotIn, values: [web]}]}",
                        "default", Map.of("team", "ml"), true),
                Arguments.of("a namespace without the label", CONFIGMAPS, ", namespaceSelector: {matchLabels: {tenant: 'yes'}}", "default", Map.of(), false),
                Arguments.of("a namespace with the label", CONFIGMAPS, ", namespaceSelector: {matchLabels: {tenant: 'yes'}}", "tenant", Map.of(), true));
    }

    @ParameterizedTest(name = "{0} → called: {5}")
    @MethodSource("matching")
    void a_webhook_is_called_only_for_what_its_rules_and_selectors_match(String what, String rules, String fields, String namespace,
                                                                        Map<String, String> labels, boolean called) {
        client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName("tenant")
                .addToLabels("tenant", "yes").endMetadata().build()).create();
        TestWebhook hook = webhook(r -> TestWebhook.allow());
        validating("match.test.dev", hook, rules, fields);

        configMap(namespace, "settings", labels);

        assertThat(hook.requests).hasSize(called ? 1 : 0);
    }

    @Test
    void webhook_configurations_themselves_are_never_sent_to_webhooks() {
        TestWebhook refusingAll = webhook(r -> TestWebhook.deny(Map.of("message", "no")));
        validating("all.test.dev", refusingAll, rule("\"*\"", "\"*\"", "\"*\""), "");

        client.admissionRegistration().v1().validatingWebhookConfigurations().withName("all-test-dev").delete();

        assertThat(client.admissionRegistration().v1().validatingWebhookConfigurations().list().getItems()).isEmpty();
        assertThat(refusingAll.requests).isEmpty();
    }

    // ---------------------------------------------------------------- the real kubectl

    @TempDir
    Path dir;

    private Kubectl kubectl() {
        assumeTrue(Kubectl.available(), "kubectl is not on the PATH");
        return Kubectl.forCluster(cluster, dir).orElseThrow();
    }

    private Path jobFile(String image) throws IOException {
        return Files.writeString(dir.resolve("job.yaml"), """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: train, namespace: default, labels: {team: ml}}
                spec:
                  parallelism: 0
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: main, image: %s}]
                """.formatted(image));
    }

    @Test
    void kubectl_apply_prints_a_denial_as_kube_apiserver_words_it() throws IOException {
        Kubectl kubectl = kubectl();
        validating("jobs.test.dev", webhook(r -> TestWebhook.deny(Map.of("message",
                "JobSizeTooSmall: the job asks for 4 GPUs per pod; nodes here have 8. Ask for a multiple of 8."))), JOBS, "");
        jobFile("trainer:1");

        Kubectl.Run apply = kubectl.run("apply", "-f", "job.yaml");

        assertThat(apply.exit()).isEqualTo(1);
        assertThat(apply.stderr()).isEqualTo("Error from server: error when creating \"job.yaml\": admission webhook \"jobs.test.dev\" "
                + "denied the request: JobSizeTooSmall: the job asks for 4 GPUs per pod; nodes here have 8. Ask for a multiple of 8.\n");
        assertThat(client.batch().v1().jobs().inNamespace("default").withName("train").get()).isNull();
    }

    @Test
    void kubectl_apply_prints_a_failed_call_under_Fail_as_an_internal_error() throws IOException {
        Kubectl kubectl = kubectl();
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String url = "https://127.0.0.1:" + port + "/validate";
        register("ValidatingWebhookConfiguration", "down.test.dev", url, webhook(r -> TestWebhook.allow()).caBundle(), JOBS, "");
        jobFile("trainer:1");

        Kubectl.Run apply = kubectl.run("apply", "-f", "job.yaml");

        assertThat(apply.exit()).isEqualTo(1);
        assertThat(apply.stderr()).isEqualTo("Error from server (InternalError): error when creating \"job.yaml\": Internal error occurred: "
                + "failed calling webhook \"down.test.dev\": failed to call webhook: Post \"" + url + "?timeout=10s\": "
                + "dial tcp 127.0.0.1:" + port + ": connect: connection refused\n");
    }

    @Test
    void kubectl_apply_stores_the_mutation_and_prints_the_webhooks_warnings() throws IOException {
        Kubectl kubectl = kubectl();
        mutating("jobs.test.dev", webhook(r -> Map.of("allowed", true, "warnings", List.of("queue name set to default"), "patchType", "JSONPatch",
                "patch", java.util.Base64.getEncoder().encodeToString(
                        "[{\"op\": \"add\", \"path\": \"/metadata/labels/kueue.x-k8s.io~1queue-name\", \"value\": \"default\"}]".getBytes(
                                java.nio.charset.StandardCharsets.UTF_8)))), JOBS, "");
        jobFile("trainer:1");

        Kubectl.Run apply = kubectl.run("apply", "-f", "job.yaml");

        assertThat(apply.exit()).as(apply.output()).isZero();
        assertThat(apply.stdout()).isEqualTo("job.batch/train created\n");
        assertThat(apply.stderr()).isEqualTo("Warning: queue name set to default\n");
        Kubectl.Run label = kubectl.run("get", "job", "train", "-o", "jsonpath={.metadata.labels.kueue\\.x-k8s\\.io/queue-name}");
        assertThat(label.stdout()).isEqualTo("default");
    }

    @Test
    void kubectl_re_apply_and_delete_print_the_denial_of_an_update_and_of_a_delete() throws IOException {
        Kubectl kubectl = kubectl();
        validating("station.test.dev", webhook(r -> TestWebhook.deny(Map.of("code", 403, "reason", "Forbidden",
                "message", "StationOwned: the platform owns this object"))), rule("batch", "jobs", "UPDATE, DELETE"), "");
        jobFile("trainer:1");
        assertThat(kubectl.run("apply", "-f", "job.yaml").exit()).isZero();
        jobFile("trainer:2");

        Kubectl.Run reapply = kubectl.run("apply", "-f", "job.yaml");
        Kubectl.Run delete = kubectl.run("delete", "job", "train");

        assertThat(reapply.exit()).isEqualTo(1);
        assertThat(reapply.stderr()).startsWith("Error from server (Forbidden): error when applying patch:")
                .endsWith("for: \"job.yaml\": error when patching \"job.yaml\": admission webhook \"station.test.dev\" denied the request: "
                        + "StationOwned: the platform owns this object\n");
        assertThat(delete.exit()).isEqualTo(1);
        assertThat(delete.stderr()).isEqualTo("Error from server (Forbidden): admission webhook \"station.test.dev\" denied the request: "
                + "StationOwned: the platform owns this object\n");
        assertThat(client.batch().v1().jobs().inNamespace("default").withName("train").get().getSpec().getTemplate().getSpec()
                .getContainers().get(0).getImage()).isEqualTo("trainer:1");
    }
}
