package com.bettercompute.adapters.gke;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.SharedVolumeProvider;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeLocator;
import com.bettercompute.application.port.SharedVolumeProviderContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Filestore adapter through the official client (HTTP/JSON) against the GKE simulator's Filestore API: the port's
 * contract, and what the simulator keeps across a restart. API-shape tests: the simulator's answers, not Google's.
 */
class FilestoreOnSimulatorTest extends SharedVolumeProviderContract {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private final Path state = Path.of("target", "filestore-simulator-test", Long.toString(System.nanoTime()));
    private MutableClock clock;
    private FilestoreSimulator simulator;
    private FilestoreSharedVolumeProvider provider;

    @BeforeEach
    void start() {
        clock = new MutableClock();
        simulator = FilestoreSimulator.start(clock, OPERATION, 0, state);
        provider = FilestoreSharedVolumeProvider.at(new FilestoreSharedVolumeProvider.Endpoint(simulator.url(), simulator.url(),
                GkeClusterProviders.Transport.PLAINTEXT, null), clock);
    }

    @AfterEach
    void stop() {
        provider.close();
        simulator.close();
    }

    @Override
    protected SharedVolumeProvider provider() {
        return provider;
    }

    @Override
    protected void letOperationsFinish() {
        clock.advance(OPERATION);
    }

    @Override
    protected void createForeign(VolumeLocator at) {
        String body = "{\"tier\": \"BASIC_HDD\", \"fileShares\": [{\"name\": \"data\", \"capacityGb\": \"1024\"}], "
                + "\"networks\": [{\"network\": \"default\"}]}";
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(simulator.url() + "/v1/projects/" + at.project() + "/locations/"
                + at.location() + "/instances?instanceId=" + at.name())).POST(HttpRequest.BodyPublishers.ofString(body)).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        letOperationsFinish();
    }

    @Override
    protected void failNextOperation(String message) {
        simulator.failNextOperations(1, message);
    }

    @Override
    protected void writeBytes(VolumeLocator at, long bytes) {
        try {
            Files.write(simulator.shareDirectory(at.project(), at.location(), at.name()).resolve("data.bin"), new byte[(int) bytes]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void the_instances_and_their_files_survive_a_restart_of_the_simulator() throws IOException {
        provider().create(new SharedVolumeProvider.VolumeSpec(AT, VOLUME, "acme", 2048));
        letOperationsFinish();
        writeBytes(AT, 4096);
        provider.close();
        simulator.close();

        simulator = FilestoreSimulator.start(clock, OPERATION, 0, state);
        provider = FilestoreSharedVolumeProvider.at(new FilestoreSharedVolumeProvider.Endpoint(simulator.url(), simulator.url(),
                GkeClusterProviders.Transport.PLAINTEXT, null), clock);
        assertThat(provider.observe(AT).volumeId()).isEqualTo(VOLUME);
        assertThat(provider.observe(AT).status()).isEqualTo(SharedVolumeProvider.Status.READY);
        assertThat(provider.usedBytes(AT)).hasValue(4096);
    }

    @Test
    void a_deleted_instance_takes_its_files_with_it() {
        provider().create(new SharedVolumeProvider.VolumeSpec(AT, VOLUME, "acme", 1024));
        letOperationsFinish();
        writeBytes(AT, 10);
        provider().delete(AT, VOLUME);
        letOperationsFinish();
        assertThat(provider().observe(AT).exists()).isFalse();
        assertThat(Files.exists(simulator.shareDirectory(AT.project(), AT.location(), AT.name()))).isFalse();
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
