package com.bettercompute.bootstrap;

import com.bettercompute.bootstrap.e2e.RunningServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    void help_lists_every_option_with_its_default_and_never_a_value_from_the_environment() {
        assertThat(serve(Map.of("BC_DB", "jdbc:postgresql://db/bc?password=hunter2"), "--help")).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        List<String> names = ServeOptions.commandLine(Map.of()).getCommandSpec().options().stream().map(OptionSpec::longestName).toList();
        assertThat(names).hasSizeGreaterThan(20).contains("--db", "--public-url", "--key-encryption-key");
        names.forEach(name -> assertThat(help).contains(name));
        assertThat(help).startsWith("usage: java -jar better-compute.jar [serve] [options]")
                .contains("(default: 8080)").contains("BC_<NAME>").doesNotContain("hunter2");
    }

    @Test
    void options_come_from_the_environment_and_the_command_line_wins() {
        CommandLine cli = ServeOptions.commandLine(Map.of("BC_PORT", "7", "BC_SIM_OPERATION_SECONDS", "1", "BC_CATALOG", "",
                "BC_IN_CLUSTER_CONCURRENCY", "64"));
        cli.parseArgs("--port=9");
        ServerConfig config = cli.<ServeOptions>getCommand().config();
        assertThat(config.port()).isEqualTo(9);
        assertThat(config.simOperationSeconds()).isEqualTo(1);
        assertThat(config.provider()).isEqualTo("simulator");
        assertThat(config.catalog()).as("an empty value is none").isNull();
        assertThat(config.inClusterConcurrency()).isEqualTo(64);
        CommandLine defaults = ServeOptions.commandLine(Map.of());
        defaults.parseArgs();
        assertThat(defaults.<ServeOptions>getCommand().config().inClusterConcurrency()).as("the default")
                .isEqualTo(ServerConfig.defaults().inClusterConcurrency()).isEqualTo(16);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "--port 70000                   | option --port must be from 0 to 65535",
            "--port http                    | '--port': 'http' is not an int",
            "--credential-ttl-seconds 60    | option --credential-ttl-seconds must be from 600 to 86400",
            "--reconcile maybe              | option --reconcile must be true or false",
            "--in-cluster-concurrency 0     | option --in-cluster-concurrency must be from 1 to 1024",
            "--log-format xml               | option --log-format must be text or json",
            "--admission-url http://x:1     | option --admission-url must start with https://",
            "--public-url ftp://x           | option --public-url must be an http or https URL",
            "--catalog                      | option --catalog needs a value",
            "--colour=blue                  | unknown option --colour",
            "extra                          | unexpected argument 'extra'"})
    void a_bad_option_names_the_option_and_the_reason(String args, String problem) {
        assertThat(serve(Map.of(), args.trim().split(" "))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(problem);
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
