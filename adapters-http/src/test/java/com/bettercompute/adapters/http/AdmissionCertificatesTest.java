package com.bettercompute.adapters.http;

import com.bettercompute.application.fakes.MutableClock;
import org.junit.jupiter.api.Test;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the admission webhooks' certificates say: a CA that signs certificates and nothing else, and a serving
 * certificate it signed, for TLS servers only, naming every host the clusters call (DNS names and IP addresses, v4
 * and v6), valid from an hour before it was made.
 */
class AdmissionCertificatesTest {
    private static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");

    @Test
    void the_ca_signs_certificates_and_the_serving_certificate_names_every_host() throws Exception {
        AdmissionKeys keys = AdmissionKeys.open(null, List.of("localhost", "127.0.0.1", "[::1]", "platform.example"), new MutableClock(NOW));
        X509Certificate[] chain = keys.servingChain();
        X509Certificate serving = chain[0];
        X509Certificate ca = chain[1];

        assertThat(ca.getBasicConstraints()).as("a CA").isGreaterThanOrEqualTo(0);
        assertThat(ca.getKeyUsage()).as("keyCertSign and cRLSign only")
                .containsExactly(false, false, false, false, false, true, true, false, false);
        assertThat(ca.getSubjectX500Principal()).isEqualTo(ca.getIssuerX500Principal());
        ca.verify(ca.getPublicKey());
        assertThat(ca.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(3650)));

        serving.verify(ca.getPublicKey());
        assertThat(serving.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
        assertThat(serving.getSubjectX500Principal().getName()).isEqualTo("CN=better-compute admission webhooks");
        assertThat(serving.getBasicConstraints()).as("not a CA").isEqualTo(-1);
        assertThat(serving.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(serving.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(serving.getCriticalExtensionOIDs()).contains("2.5.29.19", "2.5.29.15");
        assertThat(serving.getSubjectAlternativeNames()).containsExactlyInAnyOrder(
                List.of(2, "localhost"), List.of(7, "127.0.0.1"), List.of(7, "0:0:0:0:0:0:0:1"), List.of(2, "platform.example"));
        assertThat(serving.getNotBefore().toInstant()).isEqualTo(NOW.minus(Duration.ofHours(1)));
        assertThat(serving.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(825)));
        assertThat(serving.getSerialNumber().signum()).isPositive();
        assertThat(serving.getSerialNumber()).isNotEqualTo(ca.getSerialNumber());
    }
}
