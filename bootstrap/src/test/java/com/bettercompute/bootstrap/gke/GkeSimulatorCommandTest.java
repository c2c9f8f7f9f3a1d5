package com.bettercompute.bootstrap.gke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GkeSimulatorCommandTest {

    @Test
    void printsExactlyItsEndpoints() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GkeSimulator simulator = GkeSimulatorCommand.start(new String[] {"--sim-operation-seconds", "0"},
                new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
            assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("gke simulator: grpc 127.0.0.1:" + simulator.grpcPort()
                    + " rest http://127.0.0.1:" + simulator.restPort() + System.lineSeparator());
            assertThat(simulator.grpcPort()).isPositive();
            assertThat(simulator.restPort()).isPositive().isNotEqualTo(simulator.grpcPort());
        }
    }

    @Test
    void readsItsOptions() {
        GkeSimulatorCommand.Options options = GkeSimulatorCommand.Options.parse(
                new String[] {"--grpc-port", "7001", "--rest-port=7002", "--sim-operation-seconds", "1.5"});
        assertThat(options).isEqualTo(new GkeSimulatorCommand.Options(7001, 7002, Duration.ofMillis(1500)));
        assertThat(GkeSimulatorCommand.Options.parse(new String[0]).operationDuration()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void refusesWhatItDoesNotKnow() {
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--port", "1"})).hasMessageContaining("unknown option --port");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--grpc-port", "x"})).hasMessageContaining("--grpc-port");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--rest-port"})).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--sim-operation-seconds", "-1"}))
                .hasMessageContaining("--sim-operation-seconds");
    }
}
