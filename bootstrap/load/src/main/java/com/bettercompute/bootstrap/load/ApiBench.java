package com.bettercompute.bootstrap.load;

import com.bettercompute.bootstrap.Server;
import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.bootstrap.ServerConfig;
import io.javalin.Javalin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The targets {@code bench/api-wrk.sh} drives with {@code wrk}, in one process: a bare Javalin endpoint
 * ({@code POST /bare}: reads the body, answers {@code {"ok":true}}) — the floor; beside it, on the same Javalin,
 * {@code POST /create-writes}: the durable writes of a create and nothing else ({@link CreateWritesFloor}, the
 * tenant read from the body's {@code tenantId}) — the floor of the creates; and the real server as
 * {@code java -jar} wires it, reconciler off, on a fresh embedded PostgreSQL in a temporary directory (the
 * server's default; {@code --db embedded}), on an H2 file in that directory ({@code --db h2}) or on the database of
 * {@code --db <JDBC URL>}, with a catalog of {@value #TENANTS} tenants ({@code load0}…) each allowed
 * {@value #MAX_CLUSTERS} clusters and an admin token {@value #TOKEN}. Prints one line
 * {@code ready bare=<port> api=<port> cluster=<id>} (a cluster of {@code load0} for {@code get}), then serves
 * until stdin closes. Loopback only.
 */
public final class ApiBench {
    static final String TOKEN = "api-bench-token";
    static final String POOL = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2";
    /** load0…load6 for the seven-tenant creates, load7 and load8 for the one-tenant creates' warm-up and window. */
    static final int TENANTS = 9;
    /** The catalog reader's bound on a tenant's maxClusters. */
    static final int MAX_CLUSTERS = 100_000;
    private static final String TENANT_FIELD = "\"tenantId\":\"";
    private static final Pattern ID = Pattern.compile("\"id\":\"(kcl_[0-9a-z]+)\"");

    private ApiBench() {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("api-bench");
        Path catalog = dir.resolve("catalog.yaml");
        Files.writeString(catalog, catalog(), StandardCharsets.UTF_8);
        String db = database(args, dir);
        CreateWritesFloor floor = new CreateWritesFloor(Database.open(floorDatabase(db, dir)), TENANTS);
        Javalin bare = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.routes.post("/bare", ctx -> {
                ctx.bodyAsBytes();
                ctx.contentType("application/json").result("{\"ok\":true}");
            });
            c.routes.post("/create-writes", ctx -> {
                String body = ctx.body();
                int at = body.indexOf(TENANT_FIELD) + TENANT_FIELD.length();
                floor.create(body.substring(at, body.indexOf('"', at)), body);
                ctx.contentType("application/json").result("{\"ok\":true}");
            });
        }).start("127.0.0.1", 0);
        try {
            Server server = Server.start(ServerConfig.defaults().withPort(0).withDb(db).withCatalog(catalog).withoutReconciler()
                            // wrk is one client per tenant: measure the server, not the per-principal limits
                            .withRequestLimits(new RequestLimits.Settings(100_000, 100_000_000, java.time.Duration.ofSeconds(10))),
                    Clock.systemUTC());
            try {
                String cluster = createOne(server.port());
                System.out.println("ready bare=" + bare.port() + " api=" + server.port() + " cluster=" + cluster);
                System.out.flush();
                // serve until the script closes stdin
                while (System.in.read() >= 0) {
                    Thread.onSpinWait();
                }
            } finally {
                server.close();
            }
        } finally {
            bare.stop();
            floor.close();
            deleteTree(dir);
        }
    }

    private static String createOne(int port) throws IOException, InterruptedException {
        String body = "{\"tenantId\":\"load0\",\"poolId\":\"" + POOL + "\",\"name\":\"the-one\",\"mode\":\"standard\","
                + "\"location\":\"us-central1-a\",\"idempotencyKey\":\"the-one\",\"nodePools\":[{\"name\":\"gpu\","
                + "\"machineType\":\"a3-highgpu-8g\",\"nodeCount\":2,\"accelerators\":{\"type\":\"nvidia-h100-80gb\",\"count\":8}}]}";
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/compute/kubernetesClusters/create"))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = ID.matcher(r.body());
        if (r.statusCode() != 200 || !m.find()) {
            throw new IllegalStateException("the first create failed: " + r.statusCode() + " " + r.body());
        }
        return m.group(1);
    }

    /**
     * The database of {@code --db}: {@code embedded} (the default) an embedded PostgreSQL in {@code dir}, as
     * java -jar runs it (fsync and synchronous_commit on); {@code h2} an H2 file there, as
     * {@code --db jdbc:h2:file:…} runs it; anything else a JDBC URL as it is.
     */
    static String database(String[] args, Path dir) {
        String db = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--db") && i + 1 < args.length) {
                db = args[++i];
            }
        }
        if (db == null || db.equals("embedded")) {
            return Database.EMBEDDED_POSTGRES + dir.resolve("postgres").toAbsolutePath();
        }
        return db.equals("h2") ? "jdbc:h2:file:" + dir.resolve("better-compute").toAbsolutePath() : db;
    }

    /**
     * Where {@link CreateWritesFloor} writes: for the embedded default a second embedded PostgreSQL beside the
     * server's (its configuration, its own directory), for an H2 file a second file, for a JDBC URL the same
     * database (its tables are named {@code floor_*}).
     */
    static String floorDatabase(String db, Path dir) {
        if (db.startsWith(Database.EMBEDDED_POSTGRES)) {
            return Database.EMBEDDED_POSTGRES + dir.resolve("floor-postgres").toAbsolutePath();
        }
        return db.startsWith("jdbc:h2:file:") ? "jdbc:h2:file:" + dir.resolve("floor").toAbsolutePath() : db;
    }

    static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One provider, account and pool offered to every tenant, {@value #TENANTS} tenants, and their admin. */
    static String catalog() {
        StringBuilder offers = new StringBuilder();
        StringBuilder tenants = new StringBuilder();
        StringBuilder bindings = new StringBuilder();
        for (int i = 0; i < TENANTS; i++) {
            offers.append("      - {tenant: load").append(i).append(", state: active}\n");
            tenants.append("  - id: load").append(i).append("\n    maxClusters: ").append(MAX_CLUSTERS).append('\n');
            bindings.append("      - {tenant: load").append(i).append(", role: kubernetes-admin}\n");
        }
        return """
                providers:
                  - id: gcp
                    managedKubernetes: true
                accounts:
                  - id: acct_load
                    provider: gcp
                    owner: platform
                    cloudProject: api-bench
                    zones: [us-central1-a, us-central1-b]
                pools:
                  - id: %s
                    account: acct_load
                    kind: provider
                    billingMode: metered
                    offers:
                %stenants:
                %sprincipals:
                  - id: service:api-bench
                    token: %s
                    bindings:
                %s""".formatted(POOL, offers, tenants, TOKEN, bindings);
    }
}
