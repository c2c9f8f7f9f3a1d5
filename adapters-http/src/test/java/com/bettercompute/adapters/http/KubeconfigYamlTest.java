package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.Kubeconfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Kubeconfig} as YAML, read back by another YAML reader (snakeyaml-engine): the document's shape is kubectl's,
 * and a value that YAML would otherwise read as syntax stays the value it was.
 */
class KubeconfigYamlTest {
    static final String CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==";

    @SuppressWarnings("unchecked")
    static Map<String, Object> read(String yaml) {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(yaml);
    }

    @SuppressWarnings("unchecked")
    static <T> T at(Map<String, Object> map, String list, String key) {
        return (T) ((List<Map<String, Object>>) map.get(list)).get(0).get(key);
    }

    @Test
    @SuppressWarnings("unchecked")
    void a_token_kubeconfig_has_one_cluster_one_user_one_context_and_the_current_context() {
        String yaml = KubeconfigYaml.write(new Kubeconfig("bc-acme-train-edit", "https://10.0.0.1", CA,
                new Kubeconfig.BearerToken("eyJ.token")));

        Map<String, Object> config = read(yaml);
        assertThat(config.keySet()).containsExactly("apiVersion", "kind", "clusters", "users", "contexts", "current-context");
        assertThat(config).containsEntry("apiVersion", "v1").containsEntry("kind", "Config")
                .containsEntry("current-context", "bc-acme-train-edit");
        assertThat((List<?>) config.get("clusters")).hasSize(1);
        assertThat((List<?>) config.get("users")).hasSize(1);
        assertThat((List<?>) config.get("contexts")).hasSize(1);
        assertThat((Map<String, Object>) at(config, "clusters", "cluster"))
                .containsExactly(Map.entry("server", "https://10.0.0.1"), Map.entry("certificate-authority-data", CA));
        assertThat((Map<String, Object>) at(config, "users", "user")).containsExactly(Map.entry("token", "eyJ.token"));
        assertThat((Map<String, Object>) at(config, "contexts", "context"))
                .containsExactly(Map.entry("cluster", "bc-acme-train-edit"), Map.entry("user", "bc-acme-train-edit"));
        assertThat((String) at(config, "users", "name")).isEqualTo("bc-acme-train-edit");
    }

    @Test
    @SuppressWarnings("unchecked")
    void a_sign_in_kubeconfig_runs_the_plugin_and_holds_no_token() {
        String yaml = KubeconfigYaml.write(Kubeconfig.withPlugin("train", "https://10.0.0.1", CA, "kubectl-nc",
                List.of("token", "--server", "http://127.0.0.1:8080", "--client", "aud-1"),
                "Install the sign-in plugin: curl -fsSL http://127.0.0.1:8080/setup.sh | sh -s -- you@example.com train"));

        Map<String, Object> user = at(read(yaml), "users", "user");
        assertThat(user.keySet()).containsExactly("exec");
        assertThat((Map<String, Object>) user.get("exec")).containsExactly(
                Map.entry("apiVersion", "client.authentication.k8s.io/v1"),
                Map.entry("command", "kubectl-nc"),
                Map.entry("args", List.of("token", "--server", "http://127.0.0.1:8080", "--client", "aud-1")),
                Map.entry("interactiveMode", "IfAvailable"),
                Map.entry("provideClusterInfo", false),
                Map.entry("installHint", "Install the sign-in plugin: curl -fsSL http://127.0.0.1:8080/setup.sh | sh -s -- you@example.com train"));
        assertThat(yaml).doesNotContain("token:");
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "with \"quotes\" and 'single' and \\ back", "new\nline: {x}", "key: value",
            "- [a] # b", "&anchor *alias !tag", "---\n...", "trailing space ", " leading", "true", "null", "~", "0x1F",
            "1e3", "ünï\u0007\u0000\u001b☃", "tab\there", "cr\rlf\n", "\ud83d\ude80", "@at `tick` %pct |pipe >gt", ""})
    void a_value_yaml_would_read_as_syntax_stays_its_value_wherever_it_is(String value) {
        Kubeconfig kubeconfig = Kubeconfig.withPlugin(value, value, value, value, List.of(value, value), value);
        Kubeconfig token = new Kubeconfig(value, value, value, new Kubeconfig.BearerToken(value));

        Map<String, Object> plugin = read(KubeconfigYaml.write(kubeconfig));
        Map<String, Object> bearer = read(KubeconfigYaml.write(token));

        for (Map<String, Object> config : List.of(plugin, bearer)) {
            assertThat(config.keySet()).containsExactly("apiVersion", "kind", "clusters", "users", "contexts", "current-context");
            assertThat(config.get("current-context")).isEqualTo(value);
            assertThat((String) at(config, "clusters", "name")).isEqualTo(value);
            Map<String, Object> cluster = at(config, "clusters", "cluster");
            assertThat(cluster).containsEntry("server", value).containsEntry("certificate-authority-data", value);
            assertThat((Map<String, Object>) at(config, "contexts", "context"))
                    .containsEntry("cluster", value).containsEntry("user", value);
        }
        assertThat((Map<String, Object>) at(bearer, "users", "user")).containsExactly(Map.entry("token", value));
        @SuppressWarnings("unchecked")
        Map<String, Object> exec = (Map<String, Object>) ((Map<String, Object>) at(plugin, "users", "user")).get("exec");
        assertThat(exec).containsEntry("command", value).containsEntry("args", List.of(value, value))
                .containsEntry("installHint", value);
    }

    @Test
    void kubectl_reads_back_the_values_as_they_were(@TempDir Path dir) throws Exception {
        Optional<Path> kubectl = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(d -> Path.of(d, "kubectl")).filter(Files::isExecutable).findFirst();
        Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not on the PATH");
        String awkward = "a \"q\" 'x' \\ b: {c}\n- [d] # e\u0007 ünï ☃\ttab";
        Path file = dir.resolve("config");
        Files.writeString(file, KubeconfigYaml.write(new Kubeconfig(awkward, "https://10.0.0.1:443", CA,
                new Kubeconfig.BearerToken(awkward))));

        Process process = new ProcessBuilder(kubectl.get().toString(), "--kubeconfig", file.toString(), "config", "view",
                "--raw", "-o", "json").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();

        JsonNode seen = new ObjectMapper().readTree(out);
        assertThat(seen.get("current-context").asText()).isEqualTo(awkward);
        assertThat(seen.get("users").get(0).get("user").get("token").asText()).isEqualTo(awkward);
        assertThat(seen.get("clusters").get(0).get("cluster").get("server").asText()).isEqualTo("https://10.0.0.1:443");
        assertThat(seen.get("contexts").get(0).get("context").get("user").asText()).isEqualTo(awkward);
    }
}
