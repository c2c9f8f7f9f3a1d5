package com.bettercompute.adapters.gke;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.application.port.ClusterProviderContract;
import com.bettercompute.application.fakes.MutableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The port's contract, against GkeClusterProvider on a fresh in-process GKE simulator per test. */
abstract class SimulatedGkeContract extends ClusterProviderContract {
    static final Duration OPERATION = Duration.ofSeconds(20);
    MutableClock clock;
    GkeSimulator simulator;
    GkeClusterProvider provider;

    abstract GkeClusterProvider connect(GkeSimulator simulator);

    @BeforeEach
    void start() {
        clock = new MutableClock();
        simulator = GkeSimulator.start(clock, OPERATION, 0, 0);
        provider = connect(simulator);
    }

    @AfterEach
    void stop() {
        provider.close();
        simulator.close();
    }

    @Override
    protected ClusterProvider provider() {
        return provider;
    }

    @Override
    protected void letOperationsFinish() {
        clock.advance(OPERATION);
    }

    @Override
    protected void createForeignCluster(ClusterLocator at) {
        String body = "{\"cluster\": {\"name\": \"" + at.name() + "\", \"initialNodeCount\": 1, \"resourceLabels\": {\"owner\": \"someone-else\"}}}";
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder()
                    .uri(URI.create(simulator.restUrl() + "/v1/projects/" + at.project() + "/locations/" + at.location() + "/clusters"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new AssertionError("creating the foreign cluster failed: " + response.body());
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        clock.advance(OPERATION);
    }

    @Override
    protected void failNextOperation(String message) {
        simulator.failNextOperations(1, message);
    }

    @Override
    protected void refuseIdentityService() {
        simulator.refuseIdentityService(PROJECT);
    }
}
