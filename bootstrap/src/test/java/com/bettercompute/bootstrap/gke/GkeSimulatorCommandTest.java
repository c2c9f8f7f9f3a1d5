package com.bettercompute.bootstrap.gke;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.adapters.gke.FilestoreSharedVolumeProvider;
import com.bettercompute.adapters.gke.GkeClusterProvider;
import com.bettercompute.adapters.gke.GkeClusterProviders;
import com.bettercompute.adapters.gke.GkeClusterProviders.Endpoint;
import com.bettercompute.adapters.gke.GkeClusterProviders.Transport;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.port.ClusterLocator;
import com.bettercompute.application.port.ClusterSpec;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.application.port.ProviderNames;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeLocator;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeSpec;
import com.bettercompute.domain.cluster.Ids;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GkeSimulatorCommandTest {
    private static final String ID = "kcl_01hzx8k3v4w5y6z7a8b9c0d1e2";
    private static final ClusterLocator AT = new ClusterLocator("demo", "us-central1-a", ProviderNames.clusterName(ID));

    @Test
    void printsExactlyItsEndpoints() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GkeSimulatorCommand.Running running = GkeSimulatorCommand.start(new String[] {"--sim-operation-seconds", "0"},
                new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
            GkeSimulator simulator = running.gke();
            assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("gke simulator: grpc 127.0.0.1:" + simulator.grpcPort()
                    + " rest http://127.0.0.1:" + simulator.restPort() + System.lineSeparator()
                    + "filestore simulator: http://127.0.0.1:" + running.filestore().port() + " (shares under "
                    + running.filestore().shareRoot() + ")" + System.lineSeparator());
            assertThat(simulator.grpcPort()).isPositive();
            assertThat(simulator.restPort()).isPositive().isNotEqualTo(simulator.grpcPort());
            assertThat(running.filestore().port()).isPositive().isNotIn(simulator.grpcPort(), simulator.restPort());
        }
    }

    @Test
    void readsItsOptions() {
        GkeSimulatorCommand.Options options = GkeSimulatorCommand.Options.parse(
                new String[] {"--grpc-port", "7001", "--rest-port=7002", "--filestore-port", "7003", "--sim-operation-seconds", "1.5",
                    "--state-dir", "sim"});
        assertThat(options).isEqualTo(new GkeSimulatorCommand.Options(7001, 7002, 7003, Duration.ofMillis(1500), Path.of("sim")));
        assertThat(GkeSimulatorCommand.Options.parse(new String[0]).operationDuration()).isEqualTo(Duration.ofSeconds(20));
        assertThat(GkeSimulatorCommand.Options.parse(new String[0]).stateDir()).isNull();
    }

    @Test
    void refusesWhatItDoesNotKnow() {
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--port", "1"})).hasMessageContaining("unknown option --port");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--grpc-port", "x"})).hasMessageContaining("--grpc-port");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--rest-port"})).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--filestore-port", "70000"}))
                .hasMessageContaining("--filestore-port");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--sim-operation-seconds", "-1"}))
                .hasMessageContaining("--sim-operation-seconds");
        assertThatThrownBy(() -> GkeSimulatorCommand.Options.parse(new String[] {"--state-dir="})).hasMessageContaining("--state-dir");
    }

    @Test
    void withAStateDirectoryItServesAgainTheClustersAndFileSharesItHadBeforeARestart(@TempDir Path state) throws Exception {
        String[] args = {"--sim-operation-seconds", "0", "--state-dir", state.toString()};
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        String volumeId = Ids.volumeId(ID);
        VolumeLocator share = new VolumeLocator("demo", "us-central1-a", Ids.volumeStorageName(volumeId));
        try (GkeSimulatorCommand.Running first = GkeSimulatorCommand.start(args, quiet);
                GkeClusterProvider provider = GkeClusterProviders.grpc(new Endpoint(first.gke().grpcTarget(), Transport.PLAINTEXT, null));
                FilestoreSharedVolumeProvider files = FilestoreSharedVolumeProvider.at(GkeProviderSetup.filestoreAt(first.filestore().url()),
                        Clock.systemUTC())) {
            provider.createCluster(new ClusterSpec(AT, ID, ClusterMode.STANDARD, null, null, List.of(), false, null, null));
            files.create(new VolumeSpec(share, volumeId, "acme", 1024));
            Files.write(first.filestore().shareDirectory("demo", "us-central1-a", share.name()).resolve("data.bin"), new byte[4096]);
        }
        try (GkeSimulatorCommand.Running second = GkeSimulatorCommand.start(args, quiet);
                FilestoreSharedVolumeProvider files = FilestoreSharedVolumeProvider.at(GkeProviderSetup.filestoreAt(second.filestore().url()),
                        Clock.systemUTC())) {
            assertThat(second.gke().clusters()).containsExactly("projects/demo/locations/us-central1-a/clusters/" + AT.name());
            assertThat(files.observe(share).volumeId()).isEqualTo(volumeId);
            assertThat(files.usedBytes(share)).hasValue(4096);
        }
    }
}
