package com.bettercompute.adapters.k8s.simulator;

import com.bettercompute.application.fakes.MutableClock;
import org.junit.jupiter.api.Test;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulated API server's certificate: its own CA (what kubeconfigs carry as certificate-authority-data), naming
 * {@code localhost} and {@code 127.0.0.1}, valid ten years from a day before it was made, and read back from its PEM
 * as it was written. {@link SimulatedClusterKubectlTest} shows kubectl trusting it.
 */
class ServerIdentityTest {
    private static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");

    @Test
    void its_certificate_is_a_self_signed_ca_for_localhost_that_survives_its_pem() throws Exception {
        ServerIdentity identity = ServerIdentity.generate(new MutableClock(NOW));
        X509Certificate cert = identity.certificate();

        cert.verify(cert.getPublicKey());
        assertThat(cert.getSubjectX500Principal()).isEqualTo(cert.getIssuerX500Principal());
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=better-compute simulated Kubernetes API");
        assertThat(cert.getBasicConstraints()).as("a CA").isGreaterThanOrEqualTo(0);
        assertThat(cert.getCriticalExtensionOIDs()).containsExactly("2.5.29.19");
        assertThat(cert.getSubjectAlternativeNames()).containsExactlyInAnyOrder(List.of(2, "localhost"), List.of(7, "127.0.0.1"));
        assertThat(cert.getSigAlgName()).isEqualTo("SHA256withRSA");
        assertThat(cert.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofDays(1)));
        assertThat(cert.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(3650)));

        ServerIdentity read = ServerIdentity.of(6443, identity.privateKeyPem(), identity.certificatePem(), identity.serviceAccountKey());
        assertThat(read.certificate()).isEqualTo(cert);
        assertThat(read.tlsKey().getEncoded()).isEqualTo(identity.tlsKey().getEncoded());
        assertThat(read.toString()).doesNotContain("PRIVATE", identity.privateKeyPem().substring(28, 60));
    }
}
