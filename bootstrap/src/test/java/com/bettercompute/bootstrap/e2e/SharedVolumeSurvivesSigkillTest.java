package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared volumes while the server is killed with SIGKILL at random moments and started again on the same PostgreSQL,
 * against one GKE simulator and one Filestore simulator that outlive it (as the standalone {@code gke-simulator} serves
 * them; the server reaches them with {@code --gke-endpoint} and {@code --filestore-endpoint}). Three clusters get a
 * volume each; one is deleted keeping its volume, one with {@code deleteVolume: true}, one stays. In the end the
 * Filestore simulator holds exactly one instance for each volume that lives and none for the one deleted, the preserved
 * volume still holds the file written into it, and each volume was announced created once.
 *
 * <p>More cycles: {@code -Dvolume.crash.cycles=20} (each cycle is a server start, about 10 s on a quiet machine).
 */
class SharedVolumeSurvivesSigkillTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String PROJECT = "platform-prod";
    static final String ZONE = "us-central1-a";

    @TempDir
    Path work;
    GkeSimulator gke;
    FilestoreSimulator filestore;
    ServerProcess server;
    List<String> args;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.kill();
        }
        if (filestore != null) {
            filestore.close();
        }
        if (gke != null) {
            gke.close();
        }
    }

    @Test
    void killed_at_random_moments_it_never_loses_a_volume_makes_two_or_deletes_one_to_be_preserved() throws Exception {
        int cycles = Integer.getInteger("volume.crash.cycles", 3);
        Random random = new Random(Long.getLong("volume.crash.seed", 20261207L));
        gke = GkeSimulator.start(Clock.systemUTC(), Duration.ofSeconds(1), 0, 0, GkeSimulatorCommand.SLEEP);
        filestore = FilestoreSimulator.start(Clock.systemUTC(), Duration.ofSeconds(1), 0, work.resolve("simulator"));
        Path catalog = work.resolve("catalog.yaml");
        Files.writeString(catalog, new String(RunningServer.class.getResourceAsStream("/e2e-catalog.yaml").readAllBytes(),
                StandardCharsets.UTF_8) + "\nstorage:\n  sharedVolumePools: [" + RunningServer.POOL + "]\n  sampleEvery: 1s\n");
        args = List.of("--port", "0", "--db", RunningServer.postgres(), "--catalog", catalog.toString(),
                "--gke-endpoint", gke.grpcTarget(), "--filestore-endpoint", filestore.url(),
                "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "2", "--replica-id", "volume-crash-test");
        start();
        String keep = call("create", ClustersApiContract.standard("acme", "keep")).get("id").asText();
        String drop = call("create", ClustersApiContract.standard("acme", "drop")).get("id").asText();
        String stay = call("create", ClustersApiContract.standard("acme", "stay")).get("id").asText();
        String kept = null;

        for (int cycle = 0; cycle < cycles; cycle++) {
            ReconcilerEndToEndTest.pause(Duration.ofMillis(200 + random.nextInt(2500)));
            server.kill();
            start();
            if (cycle == 0) {
                // both ready, a file in the one to keep, then both deleted: the kills that follow land in the volumes' fates
                kept = await(keep, c -> c.get("state").asText().equals("ready"), "ready").get("sharedVolume").get("storageName").asText();
                await(drop, c -> c.get("state").asText().equals("ready"), "ready");
                Files.write(filestore.shareDirectory(PROJECT, ZONE, kept).resolve("checkpoint.bin"), new byte[4096]);
                call("delete", Map.of("tenantId", "acme", "clusterId", keep));
                call("delete", Map.of("tenantId", "acme", "clusterId", drop, "deleteVolume", true));
            }
        }

        String dropped = get(drop).get("sharedVolume").get("storageName").asText();
        String stays = await(stay, c -> c.get("state").asText().equals("ready"), "ready").get("sharedVolume").get("storageName").asText();
        await(keep, c -> c.get("state").asText().equals("deleted"), "deleted");
        await(drop, c -> c.get("state").asText().equals("deleted"), "deleted");
        String preserved = kept;
        NodePoolsEndToEndTest.await(this::volumes, v -> state(v, preserved).equals("preserved") && state(v, dropped).equals("gone")
                && state(v, stays).equals("attached"), "the volume kept preserved, the one dropped gone, the one staying attached");

        List<String> instances = filestore.instanceNames();
        assertThat(instances.stream().filter(n -> n.endsWith("/" + preserved))).as("the preserved volume, once").hasSize(1);
        assertThat(instances.stream().filter(n -> n.endsWith("/" + stays))).as("the attached volume, once").hasSize(1);
        assertThat(instances).as("nothing else: no second instance, no orphan, the dropped one gone").hasSize(2);
        assertThat(filestore.shareDirectory(PROJECT, ZONE, preserved).resolve("checkpoint.bin")).as("the preserved volume's data")
                .hasSize(4096);
        for (String storageName : List.of(preserved, dropped, stays)) {
            assertThat(volumeEvents(storageName).stream().filter("kubernetes.volume.created"::equals)).as(storageName).hasSize(1);
            assertThat(volumeEvents(storageName).stream().filter("kubernetes.volume.attached"::equals)).as(storageName).hasSize(1);
        }
        assertThat(volumeEvents(preserved)).contains("kubernetes.volume.preserved").doesNotContain("kubernetes.volume.deleting");
        assertThat(volumeEvents(dropped)).contains("kubernetes.volume.deleted").doesNotContain("kubernetes.volume.preserved");
    }

    // ------------------------------------------------------------------ helpers

    void start() throws Exception {
        server = ServerProcess.start(work, work.resolve("server.log"), args);
    }

    JsonNode call(String method, Object body) {
        return send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/api/compute/kubernetesClusters/" + method))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json(body))), method);
    }

    JsonNode get(String id) {
        return call("get", Map.of("tenantId", "acme", "clusterId", id));
    }

    JsonNode read(String pathAndQuery) {
        return send(HttpRequest.newBuilder(URI.create(server.baseUrl() + pathAndQuery)).GET(), pathAndQuery);
    }

    private static JsonNode send(HttpRequest.Builder request, String what) {
        try {
            HttpResponse<String> r = HTTP.send(request.header("Authorization", "Bearer " + RunningServer.ALICE).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(what + " " + r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String json(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    JsonNode await(String id, Predicate<JsonNode> condition, String what) {
        return NodePoolsEndToEndTest.await(() -> get(id), condition, id + " " + what);
    }

    /** Each listed volume's state by storage name, as one object. */
    JsonNode volumes() {
        com.fasterxml.jackson.databind.node.ObjectNode states = JSON.createObjectNode();
        for (JsonNode v : read("/api/k8s/volumes").get("items")) {
            states.put(v.get("storage_name").asText(), v.get("state").asText());
        }
        return states;
    }

    static String state(JsonNode volumes, String storageName) {
        return volumes.path(storageName).asText("gone");
    }

    /** The types of the organization's events about one volume, oldest first. */
    List<String> volumeEvents(String storageName) {
        List<String> types = new ArrayList<>();
        for (JsonNode e : read("/api/events?tenantId=acme&limit=1000").get("items")) {
            if (e.path("data").path("storageName").asText().equals(storageName)) {
                types.add(e.get("type").asText());
            }
        }
        return types;
    }
}
