package com.bettercompute.adapters.k8s.simulator;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An admission webhook for tests, standing for whoever serves one: the JDK's HTTPS server on a loopback
 * address with a certificate of its own (for {@code localhost} and {@code 127.0.0.1}; its PEM is the
 * {@link #caBundle()}), answering each AdmissionReview with what {@code answer} makes of its request (the
 * {@code response} without its uid, which is added here), or never answering until closed when
 * {@code answer} gives null. Every request received is kept, in order.
 */
final class TestWebhook implements AutoCloseable {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    final List<Map<String, Object>> requests = new CopyOnWriteArrayList<>();
    private final HttpsServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final ServerIdentity identity = ServerIdentity.generate(new com.bettercompute.application.fakes.MutableClock());

    TestWebhook(Function<Map<String, Object>, Map<String, Object>> answer) {
        this(InetAddress.getLoopbackAddress(), answer);
    }

    TestWebhook(InetAddress address, Function<Map<String, Object>, Map<String, Object>> answer) {
        try {
            server = HttpsServer.create(new InetSocketAddress(address, 0), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(tls(identity)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            try (exchange) {
                Map<String, Object> review = Obj.map(JSON.unmarshal(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8), Map.class));
                Map<String, Object> request = Obj.map(review.get("request"));
                requests.add(request);
                Map<String, Object> response = answer.apply(request);
                if (response == null) {
                    closed.await(60, TimeUnit.SECONDS);
                    return;
                }
                Map<String, Object> withUid = new LinkedHashMap<>(response);
                withUid.put("uid", request.get("uid"));
                byte[] body = JSON.asJson(Map.of("apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview", "response", withUid))
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    /** The URL of a path of this webhook, by the address it listens on. */
    String url(String path) {
        return "https://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort() + path;
    }

    /** Its certificate as a caBundle: base64 of the PEM. */
    String caBundle() {
        return Base64.getEncoder().encodeToString(identity.certificatePem().getBytes(StandardCharsets.US_ASCII));
    }

    /** The operations it was called for, in order. */
    List<Object> operations() {
        return requests.stream().map(r -> r.get("operation")).toList();
    }

    static Map<String, Object> allow() {
        return Map.of("allowed", true);
    }

    static Map<String, Object> deny(Map<String, Object> status) {
        return Map.of("allowed", false, "status", status);
    }

    /** Allowed, with a JSON Patch (as JSON text) for the object. */
    static Map<String, Object> patch(String jsonPatch) {
        return Map.of("allowed", true, "patchType", "JSONPatch",
                "patch", Base64.getEncoder().encodeToString(jsonPatch.getBytes(StandardCharsets.UTF_8)));
    }

    private static SSLContext tls(ServerIdentity identity) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("webhook", identity.tlsKey(), new char[0], new Certificate[] {identity.certificate()});
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, new char[0]);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
