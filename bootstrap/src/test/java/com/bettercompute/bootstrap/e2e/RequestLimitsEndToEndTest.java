package com.bettercompute.bootstrap.e2e;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.bootstrap.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One client cannot starve the others: a body is bounded in time (408, connection closed), a principal
 * beyond its share is answered 429 with {@code Retry-After} before its body is read, a body the client
 * cuts short is its fault (400, no ERROR, no stack trace), and another tenant keeps being served while
 * one opens hundreds of slow connections. Raw sockets on loopback, each bounded in time.
 */
class RequestLimitsEndToEndTest {
    private static final String GET = "/api/compute/kubernetesClusters/get";
    private static final String BODY = "{\"tenantId\":\"acme\",\"clusterId\":\"kcl_0000000000000000000000000a\"}";

    private RunningServer server;
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Logger access = (Logger) LoggerFactory.getLogger("better-compute.access");

    private RunningServer start(int concurrent, int perSecond, int bodySeconds) {
        logged.start();
        root.addAppender(logged);
        access.addAppender(logged); // the access lines do not go up to the root (logback.xml)
        server = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(RunningServer.h2())
                .withCatalog(RunningServer.catalogFile()).withoutReconciler()
                .withRequestLimits(new RequestLimits.Settings(concurrent, perSecond, Duration.ofSeconds(bodySeconds))));
        return server;
    }

    @AfterEach
    void stop() {
        root.detachAppender(logged);
        access.detachAppender(logged);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void a_body_that_stops_arriving_is_answered_408_and_the_connection_closed() throws IOException {
        start(16, 300, 2);
        try (Socket s = open(RunningServer.ALICE, 100)) {
            s.getOutputStream().write("{\"tenantId\"".getBytes(StandardCharsets.UTF_8));
            Reply r = read(s);

            assertThat(r.status()).isEqualTo(408);
            assertThat(r.text()).contains("\"reason\":\"body-timeout\"");
            assertThat(r.closed()).as("the connection is closed").isTrue();
        }
    }

    @Test
    void a_body_that_keeps_trickling_is_cut_at_the_deadline_not_left_to_an_idle_timeout() throws Exception {
        start(16, 300, 2);
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        try (Socket s = open(RunningServer.ALICE, 1000)) {
            OutputStream out = s.getOutputStream();
            trickle.scheduleAtFixedRate(() -> {
                try {
                    out.write(' ');
                    out.flush();
                } catch (IOException closed) {
                    // the server closed it: what the test waits for
                }
            }, 0, 300, TimeUnit.MILLISECONDS);

            assertThat(read(s).status()).isEqualTo(408);
        } finally {
            trickle.shutdownNow();
        }
    }

    @Test
    void a_body_shorter_than_its_content_length_is_400_without_an_error_logged() throws IOException {
        start(16, 300, 10);
        try (Socket s = open(RunningServer.ALICE, 100)) {
            s.getOutputStream().write("{\"tenantId\":".getBytes(StandardCharsets.UTF_8));
            s.shutdownOutput();
            Reply r = read(s);

            assertThat(r.status()).isEqualTo(400);
            assertThat(r.text()).contains("\"code\":\"INVALID_INPUT\"").contains("body-incomplete");
        }
        assertThat(server.call("get", RunningServer.ALICE, BODY).status()).as("the server goes on").isEqualTo(404);
        assertNoErrorOrStackTrace();
    }

    @Test
    void a_client_that_aborts_its_body_leaves_no_error_and_no_place_taken() throws IOException {
        start(2, 300, 10);
        for (int i = 0; i < 5; i++) {
            Socket s = open(RunningServer.ALICE, 100);
            s.getOutputStream().write("{\"tenant".getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            s.setSoLinger(true, 0);
            s.close();
        }

        assertThat(eventually200or404()).as("aborted requests gave their places back").isTrue();
        assertNoErrorOrStackTrace();
    }

    @Test
    void a_principal_beyond_its_rate_is_answered_429_with_retry_after() throws IOException {
        start(16, 5, 10);
        Map<Integer, Integer> statuses = new TreeMap<>();
        String retryAfter = null;
        for (int i = 0; i < 30; i++) {
            RunningServer.Reply r = server.call("get", RunningServer.ALICE, BODY);
            statuses.merge(r.status(), 1, Integer::sum);
            if (r.status() == 429) {
                retryAfter = r.retryAfter();
                assertThat(r.json().at("/error/details/reason").asText()).isEqualTo("rate");
            }
        }

        assertThat(statuses).containsKeys(404, 429);
        assertThat(retryAfter).isNotNull();
        assertThat(Integer.parseInt(retryAfter)).isPositive();
    }

    @Test
    void another_tenant_is_served_while_one_holds_250_connections_sending_a_byte_a_second() throws Exception {
        start(RequestLimits.Settings.DEFAULT_CONCURRENT, RequestLimits.Settings.DEFAULT_PER_SECOND, 6);
        String globex = "{\"tenantId\":\"globex\",\"name\":\"steady\",\"mode\":\"autopilot\",\"location\":\"us-central1\","
                + "\"poolId\":\"" + RunningServer.POOL + "\",\"idempotencyKey\":\"steady\"}";
        RunningServer.Reply created = server.call("create", RunningServer.CAROL, globex);
        assertThat(created.status()).isEqualTo(200);
        String carolGet = "{\"tenantId\":\"globex\",\"clusterId\":\"" + created.json().get("id").asText() + "\"}";

        List<Socket> slow = new ArrayList<>();
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        try {
            for (int i = 0; i < 250; i++) {
                slow.add(open(RunningServer.ALICE, 1000));
            }
            trickle.scheduleAtFixedRate(() -> {
                for (Socket s : slow) {
                    try {
                        s.getOutputStream().write(' ');
                    } catch (IOException closed) {
                        // refused or timed out: the server closed it
                    }
                }
            }, 0, 1, TimeUnit.SECONDS);

            // each get bounded, so a starved server fails the test instead of hanging it
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
            List<Integer> answers = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                answers.add(client.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + GET))
                        .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + RunningServer.CAROL).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(carolGet)).build(), HttpResponse.BodyHandlers.discarding()).statusCode());
            }
            assertThat(answers).as("every get of the other tenant answered").containsOnly(200);

            Map<Integer, Integer> attacker = new TreeMap<>();
            for (Socket s : slow) {
                attacker.merge(read(s).status(), 1, Integer::sum);
            }
            assertThat(attacker.keySet()).as("every slow request answered, refused or cut").containsOnly(408, 429);
            assertThat(attacker.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(250);
            assertThat(attacker.get(429)).as("most refused before their bodies were read").isGreaterThan(125);
        } finally {
            trickle.shutdownNow();
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    private boolean eventually200or404() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int status = server.call("get", RunningServer.ALICE, BODY).status();
            if (status == 404) {
                return true;
            }
        }
        return false;
    }

    private void assertNoErrorOrStackTrace() {
        assertThat(logged.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)).isEmpty();
        assertThat(logged.list).filteredOn(e -> e.getThrowableProxy() != null && e.getLevel().isGreaterOrEqual(Level.INFO)).isEmpty();
    }

    /** A POST of get with a Content-Length of {@code length}, headers sent, body not yet. */
    private Socket open(String token, int length) throws IOException {
        int port = Integer.parseInt(server.baseUrl().substring(server.baseUrl().lastIndexOf(':') + 1));
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(20_000);
        String head = "POST " + GET + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n";
        s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        return s;
    }

    record Reply(int status, Map<String, String> headers, String text, boolean closed) {}

    /** The response, and whether the server closed the connection after it. */
    private static Reply read(Socket s) {
        try {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            boolean closed = false;
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    all.write(buffer, 0, n);
                    if (complete(all.toString(StandardCharsets.ISO_8859_1))) {
                        s.setSoTimeout(2_000);
                    }
                }
                closed = n < 0;
            } catch (SocketTimeoutException stillOpen) {
                closed = false;
            } catch (IOException reset) {
                closed = true;
            }
            String raw = all.toString(StandardCharsets.UTF_8);
            int end = raw.indexOf("\r\n\r\n");
            if (end < 0) {
                return new Reply(-1, Map.of(), raw, closed);
            }
            String[] lines = raw.substring(0, end).split("\r\n");
            Map<String, String> headers = new TreeMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(), lines[i].substring(colon + 1).trim());
            }
            return new Reply(Integer.parseInt(lines[0].split(" ")[1]), headers, raw.substring(end + 4), closed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean complete(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        String head = raw.substring(0, end).toLowerCase();
        int at = head.indexOf("content-length:");
        if (at < 0) {
            return false;
        }
        int length = Integer.parseInt(head.substring(at + 15).split("\r\n")[0].trim());
        return raw.length() - end - 4 >= length;
    }
}
