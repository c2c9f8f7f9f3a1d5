package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.Kubeconfig;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.UncheckedIOException;
import java.util.List;

/**
 * A {@link Kubeconfig} as the YAML document kubectl reads ({@code apiVersion: v1}, {@code kind: Config}), written by
 * Jackson's YAML module: every value is a scalar the library quotes and escapes, so a quote, a colon, a newline or a
 * control character in a name, URL or token stays inside its value.
 */
final class KubeconfigYaml {
    private static final YAMLMapper YAML = YAMLMapper.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build();

    private KubeconfigYaml() {}

    static String write(Kubeconfig kubeconfig) {
        String name = kubeconfig.name();
        Object user = kubeconfig.user() instanceof Kubeconfig.Plugin p
                ? new ExecUser(new Exec("client.authentication.k8s.io/v1", p.command(), p.args(), "IfAvailable", false,
                        p.installHint()))
                : new TokenUser(((Kubeconfig.BearerToken) kubeconfig.user()).token());
        Document document = new Document("v1", "Config",
                List.of(new NamedCluster(name, new ClusterEntry(kubeconfig.server(), kubeconfig.caBase64()))),
                List.of(new NamedUser(name, user)),
                List.of(new NamedContext(name, new ContextEntry(name, name))),
                name);
        try {
            return YAML.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            // records of strings, lists and a boolean: nothing here the writer can refuse
            throw new UncheckedIOException(e);
        }
    }

    record Document(String apiVersion, String kind, List<NamedCluster> clusters, List<NamedUser> users,
                    List<NamedContext> contexts, @JsonProperty("current-context") String currentContext) {}

    record NamedCluster(String name, ClusterEntry cluster) {}

    record ClusterEntry(String server, @JsonProperty("certificate-authority-data") String certificateAuthorityData) {}

    record NamedUser(String name, Object user) {}

    record TokenUser(String token) {}

    record ExecUser(Exec exec) {}

    record Exec(String apiVersion, String command, List<String> args, String interactiveMode, boolean provideClusterInfo,
                String installHint) {}

    record NamedContext(String name, ContextEntry context) {}

    record ContextEntry(String cluster, String user) {}
}
