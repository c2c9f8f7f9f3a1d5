package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.ClusterConnection;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * One tenant cluster's API as fabric8's mock server in CRUD mode with expectations beside it (for what
 * the mock cannot do, like the Eviction API), over HTTPS on a random loopback port.
 */
final class CrudMockCluster implements AutoCloseable {
    final KubernetesMockServer server;
    private final NamespacedKubernetesClient admin;

    CrudMockCluster() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), true);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = server.createClient();
    }

    /** How the product reaches it: its URL, its self-signed certificate as the CA, any token. */
    ClusterConnection connection() {
        try {
            String pem = Files.readString(Path.of(server.getSelfSignedCertificate().certificatePath()));
            return new ClusterConnection("https://" + server.getHostName() + ":" + server.getPort(),
                    Base64.getEncoder().encodeToString(pem.getBytes()), "platform-token");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client for the test's own reads and writes (what Kueue or a tenant would do). */
    NamespacedKubernetesClient admin() {
        return admin;
    }

    @Override
    public void close() {
        admin.close();
        server.destroy();
    }
}
