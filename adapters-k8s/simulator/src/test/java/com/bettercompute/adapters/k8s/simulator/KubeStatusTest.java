package com.bettercompute.adapters.k8s.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Status bodies of the simulated API server as fabric8 reads them back, whatever text a message holds. */
class KubeStatusTest {
    private final KubernetesSerialization client = new KubernetesSerialization();

    @ParameterizedTest
    @ValueSource(strings = {"pods \"web\" not found", "first line\nsecond line", "a \"quoted\"\nand a \\ backslash",
            "tab\there, bell \u0007, snowman \u2603"})
    void aFailureMessageComesBackAsWritten(String message) {
        Status read = client.unmarshal(KubeStatus.json(KubeStatus.failure(404, "NotFound", message)), Status.class);

        assertThat(read.getKind()).isEqualTo("Status");
        assertThat(read.getStatus()).isEqualTo("Failure");
        assertThat(read.getMessage()).isEqualTo(message);
        assertThat(read.getReason()).isEqualTo("NotFound");
        assertThat(read.getCode()).isEqualTo(404);
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201})
    void aSuccessCarriesItsCode(int code) {
        Status read = client.unmarshal(KubeStatus.json(KubeStatus.success(code)), Status.class);

        assertThat(read.getStatus()).isEqualTo("Success");
        assertThat(read.getCode()).isEqualTo(code);
    }
}
