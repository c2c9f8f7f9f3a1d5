package com.bettercompute.bootstrap;

import com.bettercompute.bootstrap.e2e.RunningServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Starting the server: options, a malformed catalog, restarts on the same database. */
class ServeCommandTest {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int serve(Map<String, String> env, String... args) {
        return ServeCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), env);
    }

    @Test
    void a_malformed_catalog_stops_the_start_with_the_line_and_the_problem(@TempDir Path dir) throws Exception {
        Path catalog = dir.resolve("catalog.yaml");
        Files.writeString(catalog, "providers:\n  - id: gcp\n    managedKubernetes: maybe\n");
        int code = serve(Map.of(), "--port", "0", "--db", "jdbc:h2:mem:bad-catalog", "--catalog", catalog.toString());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("line 3").contains("managedKubernetes").contains("true or false");
    }

    @Test
    void the_former_h2_default_beside_a_new_embedded_postgresql_stops_the_start_with_what_to_do(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("better-compute.mv.db"), "H2 data");
        int code = serve(Map.of(), "--port", "0", "--db", "embedded-postgres:" + dir.resolve("postgres"));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("better-compute.mv.db")
                .contains("--db jdbc:h2:file:" + dir.resolve("better-compute")).contains("move it away");
    }

    @Test
    void unknown_options_and_bad_values_stop_the_start() {
        assertThat(serve(Map.of(), "--colour", "blue")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option --colour");
        assertThat(serve(Map.of(), "--port", "http")).isEqualTo(2);
        assertThat(serve(Map.of("BC_PROVIDER", "aws"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--provider must be simulator or gke");
        assertThat(serve(Map.of("BC_KEY_ENCRYPTION_KEY", "c2VjcmV0LWJ1dC1zaG9ydA=="))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("option --key-encryption-key (BC_KEY_ENCRYPTION_KEY) must be 32 random bytes in base64")
                .doesNotContain("c2VjcmV0LWJ1dC1zaG9ydA==");
    }

    @Test
    void a_catalog_that_provisions_volumes_with_a_gke_endpoint_and_no_filestore_endpoint_stops_the_start_with_what_to_do() {
        // the built-in demo catalog provisions shared volumes on its pool
        assertThat(serve(Map.of(), "--port", "0", "--db", "jdbc:h2:mem:no-filestore", "--gke-endpoint", "127.0.0.1:9")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--gke-endpoint names no Filestore API").contains("--filestore-endpoint");
        assertThat(serve(Map.of(), "--port", "0", "--db", "jdbc:h2:mem:far-filestore", "--filestore-endpoint", "http://10.0.0.5:80"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--filestore-endpoint over http is for this machine only");
    }

    @Test
    void help_lists_every_option() {
        assertThat(serve(Map.of(), "--help")).isZero();
        for (Options.Spec spec : ServeCommand.SPECS) {
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("--" + spec.name());
        }
    }

    @Test
    void options_come_from_the_environment_and_the_command_line_wins() {
        Options o = Options.parse(new String[]{"--port=9"}, ServeCommand.SPECS, Map.of("BC_PORT", "7", "BC_SIM_OPERATION_SECONDS", "1"));
        assertThat(o.integer("port", 0, 65535)).isEqualTo(9);
        assertThat(o.integer("sim-operation-seconds", 0, 100)).isEqualTo(1);
        assertThat(o.get("provider")).contains("simulator");
    }

    @Test
    void a_restart_reloads_the_catalog_without_duplicating_and_keeps_the_clusters(@TempDir Path dir) {
        String db = "jdbc:h2:file:" + dir.resolve("bc") ;
        String id;
        try (RunningServer first = RunningServer.start(db)) {
            id = first.call("create", RunningServer.ALICE, com.bettercompute.bootstrap.e2e.ClustersApiContract.standard("acme", "kept"))
                    .json().get("id").asText();
        }
        try (RunningServer second = RunningServer.start(db)) {
            assertThat(second.call("get", RunningServer.ALICE, Map.of("tenantId", "acme", "clusterId", id)).status()).isEqualTo(200);
            assertThat(second.call("list", RunningServer.ALICE, Map.of("tenantId", "acme")).json().get("items")).hasSize(1);
        }
    }
}
