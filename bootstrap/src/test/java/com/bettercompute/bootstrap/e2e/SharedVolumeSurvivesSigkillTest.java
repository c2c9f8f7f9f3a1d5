package com.bettercompute.bootstrap.e2e;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.bootstrap.gke.GkeSimulatorCommand;
import com.bettercompute.domain.cluster.Ids;
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
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared volumes while the server is killed with SIGKILL and started again on the same PostgreSQL, against one GKE
 * simulator and one Filestore simulator that outlive it (as the standalone {@code gke-simulator} serves them; the server
 * reaches them with {@code --gke-endpoint} and {@code --filestore-endpoint}). Three clusters get a volume each; one is
 * deleted keeping its volume, one with {@code deleteVolume: true}, one stays. The server is killed three times, each
 * time in the middle of a Filestore call — the call taken by Filestore, its answer held until the server is dead:
 * while a volume is made (its create; which volume, the seed says), while the volumes' fates are decided (the volume
 * loop asking who holds the one to drop, beside the one being preserved), and while the dropped one is destroyed (its
 * delete). In the end the Filestore simulator holds exactly one instance for each volume that lives and none for the
 * one deleted, the preserved volume still holds the file written into it, and each volume was announced created once.
 *
 * <p>Every kill lands inside a reconcile pass, whose cluster lease the killed process held: the server started again
 * under the same replica id takes its clusters back at once, or the waits here (a minute) would not be met.
 * Another volume in the making: {@code -Dvolume.crash.seed=N}.
 */
class SharedVolumeSurvivesSigkillTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String PROJECT = "platform-prod";
    static final String ZONE = "us-central1-a";
    static final String CALLER = "user:alice@acme.example";
    /** The simulators' operations: short, since each kill waits for the server to start again anyway. */
    static final Duration OPERATION = Duration.ofMillis(500);
    static final Duration PATIENCE = Duration.ofSeconds(90);
    /** The killed servers' log, kept for a person to read after a failure. */
    static final Path LOG = Path.of("target", "shared-volume-crash-server.log").toAbsolutePath();

    @TempDir
    Path work;
    GkeSimulator gke;
    FilestoreSimulator filestore;
    volatile ServerProcess server;
    volatile KillPoint armed;
    List<String> args;

    @AfterEach
    void stop() throws Exception {
        KillPoint k = armed;
        if (k != null) {
            k.killed.countDown();
        }
        if (server != null) {
            server.kill();
        }
        if (filestore != null) {
            filestore.close();
        }
        if (gke != null) {
            gke.close();
        }
        if (Files.exists(work.resolve("server.log"))) {
            Files.copy(work.resolve("server.log"), LOG, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void killed_at_random_moments_it_never_loses_a_volume_makes_two_or_deletes_one_to_be_preserved() throws Exception {
        Random random = new Random(Long.getLong("volume.crash.seed", 20261207L));
        gke = GkeSimulator.start(Clock.systemUTC(), OPERATION, 0, 0, GkeSimulatorCommand.SLEEP);
        filestore = FilestoreSimulator.start(Clock.systemUTC(), OPERATION, 0, work.resolve("simulator"));
        filestore.onCall(call -> {
            KillPoint k = armed;
            if (k != null) {
                k.reached(call);
            }
        });
        Path catalog = work.resolve("catalog.yaml");
        Files.writeString(catalog, new String(RunningServer.class.getResourceAsStream("/e2e-catalog.yaml").readAllBytes(),
                StandardCharsets.UTF_8) + "\nstorage:\n  sharedVolumePools: [" + RunningServer.POOL + "]\n  sampleEvery: 1s\n");
        args = List.of("--port", "0", "--db", RunningServer.postgres(), "--catalog", catalog.toString(),
                "--gke-endpoint", gke.grpcTarget(), "--filestore-endpoint", filestore.url(),
                "--reconcile-converging-seconds", "1", "--reconcile-settled-seconds", "2", "--replica-id", "volume-crash-test");
        start();

        // made: killed as Filestore takes one volume's create
        String victim = List.of("keep", "drop", "stay").get(random.nextInt(3));
        armed = new KillPoint("the create of " + victim + "'s volume", call -> call.verb().equals("create")
                && call.instance().endsWith("/" + storageName(victim)));
        String keep = call("create", ClustersApiContract.standard("acme", "keep")).get("id").asText();
        String drop = call("create", ClustersApiContract.standard("acme", "drop")).get("id").asText();
        String stay = call("create", ClustersApiContract.standard("acme", "stay")).get("id").asText();
        killAndStartAgain(null);

        // both ready, a file in the one to keep, then both deleted
        String kept = await(keep, c -> c.get("state").asText().equals("ready"), "ready").get("sharedVolume").get("storageName").asText();
        String dropped = await(drop, c -> c.get("state").asText().equals("ready"), "ready").get("sharedVolume").get("storageName").asText();
        assertThat(List.of(kept, dropped)).as("the storage names derive from the clusters' ids")
                .containsExactly(storageName("keep"), storageName("drop"));
        Files.write(filestore.shareDirectory(PROJECT, ZONE, kept).resolve("checkpoint.bin"), new byte[4096]);
        // the fates: killed as the volume loop asks Filestore who holds the volume to drop (its cluster gone)
        armed = new KillPoint("the fate of " + dropped, call -> call.verb().equals("get") && call.instance().endsWith("/" + dropped));
        call("delete", Map.of("tenantId", "acme", "clusterId", keep));
        call("delete", Map.of("tenantId", "acme", "clusterId", drop, "deleteVolume", true));
        // destroyed: killed as Filestore takes the dropped volume's delete
        killAndStartAgain(new KillPoint("the delete of " + dropped, call -> call.verb().equals("delete")
                && call.instance().endsWith("/" + dropped)));
        killAndStartAgain(null);

        String stays = await(stay, c -> c.get("state").asText().equals("ready"), "ready").get("sharedVolume").get("storageName").asText();
        await(keep, c -> c.get("state").asText().equals("deleted"), "deleted");
        await(drop, c -> c.get("state").asText().equals("deleted"), "deleted");
        NodePoolsEndToEndTest.await(this::volumes, v -> state(v, kept).equals("preserved") && state(v, dropped).equals("gone")
                && state(v, stays).equals("attached"), "the volume kept preserved, the one dropped gone, the one staying attached");

        List<String> instances = filestore.instanceNames();
        assertThat(instances.stream().filter(n -> n.endsWith("/" + kept))).as("the preserved volume, once").hasSize(1);
        assertThat(instances.stream().filter(n -> n.endsWith("/" + stays))).as("the attached volume, once").hasSize(1);
        assertThat(instances).as("nothing else: no second instance, no orphan, the dropped one gone").hasSize(2);
        assertThat(filestore.shareDirectory(PROJECT, ZONE, kept).resolve("checkpoint.bin")).as("the preserved volume's data")
                .hasSize(4096);
        for (String storageName : List.of(kept, dropped, stays)) {
            assertThat(volumeEvents(storageName).stream().filter("kubernetes.volume.created"::equals)).as(storageName).hasSize(1);
            assertThat(volumeEvents(storageName).stream().filter("kubernetes.volume.attached"::equals)).as(storageName).hasSize(1);
        }
        assertThat(volumeEvents(kept)).contains("kubernetes.volume.preserved").doesNotContain("kubernetes.volume.deleting");
        assertThat(volumeEvents(dropped)).contains("kubernetes.volume.deleted").doesNotContain("kubernetes.volume.preserved");
    }

    /**
     * A moment to kill the server at: the first Filestore call it matches is held unanswered (the call has taken effect
     * at Filestore) until the test has killed the server, so the server dies waiting for the answer.
     */
    static final class KillPoint {
        final String what;
        final Predicate<FilestoreSimulator.Call> when;
        final AtomicBoolean taken = new AtomicBoolean();
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch killed = new CountDownLatch(1);

        KillPoint(String what, Predicate<FilestoreSimulator.Call> when) {
            this.what = what;
            this.when = when;
        }

        /** On the simulator's thread: holds a matching call's answer until the server is dead. */
        void reached(FilestoreSimulator.Call call) {
            if (!when.test(call) || !taken.compareAndSet(false, true)) {
                return;
            }
            reached.countDown();
            try {
                killed.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits (at most {@link #PATIENCE}) for the armed kill point, kills the server there, arms {@code next} (null:
     * none) and starts the server again.
     */
    void killAndStartAgain(KillPoint next) throws Exception {
        KillPoint k = armed;
        if (!k.reached.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(k.what + " never came; the end of the server's log:\n" + ServerProcess.tail(work.resolve("server.log"), 40));
        }
        server.kill();
        armed = next;
        k.killed.countDown();
        start();
    }

    /** The storage name of the volume of the cluster {@code name} Alice creates with the idempotency key the test uses. */
    static String storageName(String name) {
        return Ids.volumeStorageName(Ids.volumeId(Ids.clusterId("acme", CALLER, "key-" + name)));
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
