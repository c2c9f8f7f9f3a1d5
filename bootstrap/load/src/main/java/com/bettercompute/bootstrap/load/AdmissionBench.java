package com.bettercompute.bootstrap.load;

import com.bettercompute.adapters.http.AdmissionKeys;
import com.bettercompute.adapters.http.AdmissionServer;
import com.bettercompute.bootstrap.Server;
import com.bettercompute.bootstrap.ServerConfig;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The targets {@code bench/admission-wrk.sh} drives with {@code wrk}, in one process: the floor, a bare Javalin
 * endpoint on the same HTTPS connector and a serving certificate of the same kind ({@code POST /bare}: reads the
 * body, answers a fixed allowing review), and the real server as {@code java -jar} wires it (reconciler off,
 * the built-in demo catalog, on a fresh database in a temporary directory: the embedded PostgreSQL by default,
 * {@code --db h2} an H2 file, or a JDBC URL) with one cluster of the demo tenant enrolled in the market. Prints
 * {@code ready bare=<port> admission=<port> validate=<path> mutate=<path>}, then serves until stdin closes.
 * Loopback only.
 */
public final class AdmissionBench {
    private static final Pattern ID = Pattern.compile("\"id\":\"(kcl_[0-9a-z]+)\"");

    private AdmissionBench() {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("admission-bench");
        String db = ApiBench.database(args, dir);
        AdmissionServer bare = AdmissionServer.bare(AdmissionKeys.open(null, List.of("localhost", "127.0.0.1"),
                Clock.systemUTC()).sslContext());
        int barePort = bare.start("127.0.0.1", 0);
        try {
            Server server = Server.start(ServerConfig.defaults().withPort(0).withDb(db).withoutReconciler(), Clock.systemUTC());
            try {
                String cluster = enrolOne(server);
                String validate = URI.create(server.admissionEndpoints().webhooks(cluster).orElseThrow().validateUrl()).getPath();
                String mutate = URI.create(server.admissionEndpoints().webhooks(cluster).orElseThrow().mutateUrl()).getPath();
                System.out.println("ready bare=" + barePort + " admission=" + server.admissionPort() + " validate=" + validate
                        + " mutate=" + mutate);
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
            ApiBench.deleteTree(dir);
        }
    }

    /** Creates a cluster of the demo tenant and enrols it in the market, as the operator does. */
    private static String enrolOne(Server server) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + server.port();
        HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/api/compute/kubernetesClusters/create"))
                .header("Authorization", "Bearer " + server.demoToken())
                .POST(HttpRequest.BodyPublishers.ofString("{\"tenantId\":\"demo\",\"poolId\":\"pool_00000000000000000000000001\","
                        + "\"name\":\"bench\",\"mode\":\"autopilot\",\"location\":\"us-central1\",\"idempotencyKey\":\"bench\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        Matcher m = ID.matcher(created.body());
        if (created.statusCode() != 200 || !m.find()) {
            throw new IllegalStateException("the cluster could not be created: " + created.statusCode() + " " + created.body());
        }
        HttpResponse<String> enrolled = http.send(HttpRequest.newBuilder(URI.create(base + "/api/operator/market/clusters"))
                .header("Authorization", "Bearer " + server.demoToken() + "-ops").header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"cluster_id\":\"" + m.group(1) + "\",\"max_cluster_gpus\":32}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (enrolled.statusCode() != 200) {
            throw new IllegalStateException("the cluster could not be enrolled: " + enrolled.statusCode() + " " + enrolled.body());
        }
        return m.group(1);
    }
}
