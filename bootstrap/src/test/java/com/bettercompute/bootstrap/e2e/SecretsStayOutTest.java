package com.bettercompute.bootstrap.e2e;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.bootstrap.ServerConfig;
import com.nimbusds.jose.jwk.RSAKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.bettercompute.bootstrap.e2e.RunningServer.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * API tokens never reach a log line, an event, an error body or the database in plain text: a full run
 * with good, bad and broken calls, its logs captured and the whole database dumped, searched for them. Nor do
 * a console session's cookie and CSRF token, the ID token signing key's private members, or the key-encryption
 * key that seals them.
 */
class SecretsStayOutTest {

    @Test
    void no_api_token_in_logs_events_errors_or_the_database() throws Exception {
        CapturedLogs logs = new CapturedLogs();
        String db = h2();
        List<String> bodies = new ArrayList<>();
        String unknownToken = "not-a-real-token-4f1b2c";
        try (RunningServer server = RunningServer.start(db)) {
            Map<String, Object> create = ClustersApiContract.standard("acme", "secret-run");
            String id = server.call("create", ALICE, create).json().get("id").asText();
            bodies.add(server.call("get", ALICE, Map.of("tenantId", "acme", "clusterId", id)).text());
            bodies.add(server.call("create", unknownToken, create).text());
            bodies.add(server.call("create", ALICE, "{\"tenantId\": \"" + ALICE + "\", \"x\": ").text());
            bodies.add(server.call("create", ALICE, Map.of("tenantId", ALICE, "poolId", ALICE)).text());
            bodies.add(server.call("get", DAVE, Map.of("tenantId", "acme", "clusterId", id)).text());
            bodies.add(server.call("delete", DAVE, Map.of("tenantId", "acme", "clusterId", id)).text());
            bodies.add(server.call("delete", ALICE, Map.of("tenantId", "acme", "clusterId", id)).text());
            bodies.add(server.get("/api/events?limit=1000", OPS).text());
            bodies.add(server.get("/api/events?after=x", OPS).text());
        } finally {
            logs.close();
        }
        // A restart loads the catalog again: still only hashes.
        RunningServer.start(db).close();

        String dump = databaseDump(db);
        assertThat(dump).contains("acme").contains("user:alice@acme.example");
        assertThat(logs.appender.list).as("the access log of the run").anySatisfy(e ->
                assertThat(e.getFormattedMessage()).contains("/api/compute/kubernetesClusters/create").contains("caller=user:alice@acme.example"));
        for (String token : List.of(ALICE, BOB, CAROL, DAVE, OPS, unknownToken)) {
            logs.assertNowhere(token);
            for (String body : bodies) {
                assertThat(body).as("a reply").doesNotContain(token);
            }
            assertThat(dump).as("the database").doesNotContain(token);
        }
    }

    @Test
    void no_console_session_csrf_token_signing_key_or_key_encryption_key_in_logs_or_the_database(@TempDir Path dir) throws Exception {
        CapturedLogs logs = new CapturedLogs();
        String db = h2();
        List<String> secrets = new ArrayList<>();
        try (RunningServer server = RunningServer.start(ServerConfig.defaults().withPort(0).withDb(db).withCatalog(catalogFile())
                .withoutReconciler().withDataDir(dir))) {
            HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
            HttpResponse<String> signedIn = browser.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/console/sign-in"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("token=" + ALICE)).build(), HttpResponse.BodyHandlers.ofString());
            String cookie = signedIn.headers().firstValue("set-cookie").orElseThrow();
            cookie = cookie.substring(0, cookie.indexOf(';'));
            secrets.add(cookie.substring(cookie.indexOf('=') + 1));
            String page = browser.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/console/clusters")).header("Cookie", cookie)
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page);
            assertThat(csrf.find()).as(page).isTrue();
            secrets.add(csrf.group(1));
        } finally {
            logs.close();
        }
        Path keyFile = dir.resolve("secrets").resolve("key-encryption-key");
        assertThat(Files.getPosixFilePermissions(keyFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(keyFile.getParent())).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        KeyEncryptionKey kek = KeyEncryptionKey.fromBase64(Files.readString(keyFile), "test");
        secrets.add(kek.base64());
        try (Database database = Database.open(db)) {
            // the key pair as the replicas read it, with the key-encryption key: none of its private members may show
            RSAKey pair = RSAKey.parse(database.newSigningKeyRepository(kek).all().get(0).privateJwk());
            for (var member : List.of(pair.getPrivateExponent(), pair.getFirstPrimeFactor(), pair.getSecondPrimeFactor(),
                    pair.getFirstFactorCRTExponent(), pair.getSecondFactorCRTExponent(), pair.getFirstCRTCoefficient())) {
                secrets.add(member.toString());
            }
        }

        String dump = databaseDump(db);
        assertThat(dump).as("the sealed key names the key-encryption key by its id").contains(kek.id());
        for (String secret : secrets) {
            assertThat(dump).as("the database").doesNotContain(secret);
            logs.assertNowhere(secret);
        }
    }

    /** The server's log lines while it is open: the root's and the access log's (which does not go up to the root). */
    static final class CapturedLogs implements AutoCloseable {
        final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        final Logger access = (Logger) LoggerFactory.getLogger("better-compute.access");
        final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        CapturedLogs() {
            appender.start();
            root.addAppender(appender);
            access.addAppender(appender);
        }

        /** No line, nor the exception a line carries, shows {@code secret}. */
        void assertNowhere(String secret) {
            for (ILoggingEvent e : List.copyOf(appender.list)) {
                assertThat(e.getFormattedMessage()).doesNotContain(secret);
                assertThat(throwableText(e.getThrowableProxy())).doesNotContain(secret);
            }
        }

        @Override
        public void close() {
            root.detachAppender(appender);
            access.detachAppender(appender);
        }
    }

    private static String throwableText(IThrowableProxy t) {
        StringBuilder s = new StringBuilder();
        for (IThrowableProxy p = t; p != null; p = p.getCause()) {
            s.append(p.getClassName()).append(": ").append(p.getMessage()).append('\n');
        }
        return s.toString();
    }

    /** Every row of every table of the database, as text. */
    static String databaseDump(String url) throws Exception {
        StringBuilder s = new StringBuilder();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC' OR table_schema = 'public'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertThat(tables).isNotEmpty();
            for (String table : tables) {
                try (ResultSet rs = st.executeQuery("SELECT * FROM \"" + table + "\"")) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            s.append(rs.getString(i)).append('\t');
                        }
                        s.append('\n');
                    }
                }
            }
        }
        return s.toString();
    }
}
