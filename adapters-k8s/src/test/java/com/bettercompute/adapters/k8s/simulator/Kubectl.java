package com.bettercompute.adapters.k8s.simulator;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The real {@code kubectl} on the PATH, run with a kubeconfig; tests skip where there is none. */
final class Kubectl {
    private Kubectl() {}

    record Run(int exit, String output) {}

    /** Runs it to its end (a minute at most), stdout and stderr together. */
    static Run run(String kubectl, Path kubeconfig, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(kubectl, "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (var in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), output);
    }

    /** A kubeconfig for one cluster whose user presents {@code token}. */
    static String kubeconfig(String server, String caBase64, String token) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: sim
                  cluster: {server: "%s", certificate-authority-data: %s}
                users:
                - name: user
                  user: {token: %s}
                contexts:
                - name: sim
                  context: {cluster: sim, user: user}
                current-context: sim
                """.formatted(server, caBase64, token);
    }

    static Optional<String> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String d : path.split(File.pathSeparator)) {
            Path candidate = Path.of(d, "kubectl");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }
}
