package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a simulated cluster's {@code /version} says: its control plane's version as GKE names it, in kube-apiserver's
 * form; the simulated server's own when the provider names none, or names something that is not a version.
 */
class VersionDiscoveryTest {
    @ParameterizedTest(name = "{0} -> {1}.{2} {3}")
    @CsvSource(nullValues = "null", value = {
            "1.33.5-gke.1080000, 1, 33, v1.33.5-gke.1080000",
            "v1.34.1-gke.1829001, 1, 34, v1.34.1-gke.1829001",
            "null, 1, 32, v1.32.0-bettercompute-sim",
            "'1.33\", \"x', 1, 32, v1.32.0-bettercompute-sim",
            "latest, 1, 32, v1.32.0-bettercompute-sim"})
    void version(String providerVersion, String major, String minor, String gitVersion) {
        @SuppressWarnings("unchecked")
        Map<String, Object> version = new KubernetesSerialization().unmarshal(Discovery.version(providerVersion), Map.class);
        assertThat(version).containsEntry("major", major).containsEntry("minor", minor).containsEntry("gitVersion", gitVersion)
                .containsEntry("platform", "linux/amd64");
    }
}
