package com.bettercompute.adapters.k8s.simulator;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The real {@code kubectl} on the PATH, run against one simulated cluster with the platform's token, in a working directory. */
final class Kubectl {
    record Run(int exit, String stdout, String stderr) {
        String output() {
            return stdout + stderr;
        }
    }

    private final String binary;
    private final Path kubeconfig;
    private final Path directory;

    private Kubectl(String binary, Path kubeconfig, Path directory) {
        this.binary = binary;
        this.kubeconfig = kubeconfig;
        this.directory = directory;
    }

    static boolean available() {
        return find("kubectl").isPresent();
    }

    /** kubectl for the cluster, working in {@code directory} (its kubeconfig written there); empty when none is on the PATH. */
    static Optional<Kubectl> forCluster(SimulatedCluster cluster, Path directory) {
        Optional<String> binary = find("kubectl");
        if (binary.isEmpty()) {
            return Optional.empty();
        }
        Path kubeconfig = directory.resolve("kubeconfig");
        try {
            Files.writeString(kubeconfig, kubeconfig("https://" + cluster.apis.endpointFor(SimulatedCluster.PROJECT,
                    SimulatedCluster.LOCATION, cluster.name), cluster.apis.caCertificateBase64(), cluster.apis.adminToken()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.of(new Kubectl(binary.get(), kubeconfig, directory));
    }

    Run run(String... args) {
        List<String> command = new ArrayList<>(List.of(binary, "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).start();
            CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            String stdout = read(process.getInputStream());
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("kubectl " + args[0] + " did not end within a minute");
            }
            return new Run(process.exitValue(), stdout, stderr.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The kubectl on the PATH. */
    static Optional<String> find() {
        return find("kubectl");
    }

    /** Runs {@code binary} with {@code kubeconfig}, in the kubeconfig's directory. */
    static Run run(String binary, Path kubeconfig, String... args) {
        return new Kubectl(binary, kubeconfig, kubeconfig.toAbsolutePath().getParent()).run(args);
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

    private static Optional<String> find(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String d : path.split(File.pathSeparator)) {
            Path candidate = Path.of(d, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }
}
