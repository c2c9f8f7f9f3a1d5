package com.bettercompute.bootstrap.e2e;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server restarted with a catalog file that no longer names someone cuts them off from the first
 * call: a removed principal's token is 401, a removed binding's holder is 403, and the pool the file
 * stopped offering takes no new cluster while the one on it stays readable.
 */
class CatalogReloadEndToEndTest {

    @Test
    void a_restart_with_a_smaller_catalog_cuts_off_who_it_no_longer_names() throws IOException {
        String db = RunningServer.h2();
        Path catalog = RunningServer.catalogFile();
        String full = Files.readString(catalog, StandardCharsets.UTF_8);
        String clusterId;
        String create = "{\"tenantId\":\"acme\",\"name\":\"train\",\"mode\":\"autopilot\",\"location\":\"us-central1\","
                + "\"poolId\":\"" + RunningServer.POOL + "\",\"idempotencyKey\":\"train\"}";
        try (RunningServer before = RunningServer.start(db, catalog)) {
            RunningServer.Reply created = before.call("create", RunningServer.ALICE, create);
            assertThat(created.status()).isEqualTo(200);
            clusterId = created.json().get("id").asText();
            assertThat(before.call("get", RunningServer.DAVE, get(clusterId)).status()).isEqualTo(200);
            assertThat(before.call("get", RunningServer.BOB, get(clusterId)).status()).isEqualTo(200);
        }

        String smaller = full
                .replace("""
                          - id: user:alice@acme.example
                            token: alice-token
                            bindings:
                              - {tenant: acme, role: kubernetes-admin}
                        """, "")
                .replace("""
                            token: dave-token
                            bindings:
                              - {tenant: acme, role: kubernetes-viewer}
                        """, """
                            token: dave-token
                        """)
                .replace("      - {tenant: acme, state: active, excludedRegions: [europe-west4]}\n", "");
        assertThat(smaller).doesNotContain("alice-token").doesNotContain("kubernetes-viewer").doesNotContain("europe-west4]");
        Files.writeString(catalog, smaller, StandardCharsets.UTF_8);

        try (RunningServer after = RunningServer.start(db, catalog)) {
            RunningServer.Reply alice = after.call("get", RunningServer.ALICE, get(clusterId));
            assertThat(alice.status()).as("a removed principal's token names nobody").isEqualTo(401);
            assertThat(alice.code()).isEqualTo("UNAUTHENTICATED");
            assertThat(after.call("delete", RunningServer.ALICE, get(clusterId)).status()).isEqualTo(401);
            assertThat(after.call("get", RunningServer.DAVE, get(clusterId)).status())
                    .as("a removed binding no longer allows").isEqualTo(403);
            assertThat(after.get("/api/events?tenantId=acme", RunningServer.DAVE).status()).isEqualTo(403);
            assertThat(after.call("get", RunningServer.BOB, get(clusterId)).status())
                    .as("who the file still allows keeps it").isEqualTo(200);
            RunningServer.Reply again = after.call("create", RunningServer.BOB, create.replace("train", "again"));
            assertThat(again.status()).as("the pool is no longer offered to acme").isEqualTo(404);
        }
    }

    private static String get(String clusterId) {
        return "{\"tenantId\":\"acme\",\"clusterId\":\"" + clusterId + "\"}";
    }
}
