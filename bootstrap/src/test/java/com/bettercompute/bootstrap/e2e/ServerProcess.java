package com.bettercompute.bootstrap.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real server ({@code Main}, the test class path) in a process of its own, for crash tests: started
 * in a working directory of the test's choosing (so the embedded default's {@code ./data} is the test's),
 * its stderr appended to a log file, and killed with SIGKILL. A PostgreSQL the killed server had started
 * under {@code ./data/postgres} outlives it, as it would in production; {@link #killEmbeddedPostgres} kills
 * that too, {@link #stopEmbeddedPostgres} stops it for good when the test ends.
 */
final class ServerProcess {
    static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    static final Pattern SIMULATOR = Pattern.compile("gke simulator: grpc \\S+ rest (http://127\\.0\\.0\\.1:\\d+)");
    static final Duration START = Duration.ofSeconds(120);

    private final Process process;
    private final String base;
    private final String simulatorRest;

    private ServerProcess(Process process, String base, String simulatorRest) {
        this.process = process;
        this.base = base;
        this.simulatorRest = simulatorRest;
    }

    /** Starts {@code Main} with {@code args} in {@code workDir} and waits until it listens. */
    static ServerProcess start(Path workDir, Path log, List<String> args) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", classpath, "com.bettercompute.bootstrap.Main"));
        command.addAll(args);
        Process process = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Instant deadline = Instant.now().plus(START);
        String line;
        String simulatorRest = null;
        while ((line = out.readLine()) != null) {
            Matcher simulator = SIMULATOR.matcher(line);
            if (simulator.find()) {
                simulatorRest = simulator.group(1);
            }
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // keep the pipe empty
                        }
                    } catch (IOException ignored) {
                        // the process was killed
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return new ServerProcess(process, "http://127.0.0.1:" + m.group(1), simulatorRest);
            }
            if (Instant.now().isAfter(deadline)) {
                break;
            }
        }
        process.destroyForcibly();
        throw new AssertionError("the server did not start; see " + log);
    }

    String baseUrl() {
        return base;
    }

    /** The in-process GKE simulator's REST front end, as its banner named it; null when it runs none. */
    String simulatorRest() {
        return simulatorRest;
    }

    /** SIGKILL: no shutdown hook, no close, whatever was in flight is cut. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the server survived SIGKILL");
        }
    }

    /** SIGKILL to the PostgreSQL a server started under {@code workDir/data/postgres}, children first. */
    static void killEmbeddedPostgres(Path workDir) throws InterruptedException {
        Optional<ProcessHandle> postmaster = postmaster(workDir);
        if (postmaster.isPresent()) {
            List<ProcessHandle> all = new ArrayList<>(postmaster.get().descendants().toList());
            all.add(postmaster.get());
            all.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle p : all) {
                p.onExit().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> p).join();
            }
        }
    }

    /** Stops (SIGTERM, PostgreSQL's smart shutdown) what a killed server left running under {@code workDir}. */
    static void stopEmbeddedPostgres(Path workDir) {
        postmaster(workDir).ifPresent(p -> {
            p.destroy();
            p.onExit().toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).exceptionally(e -> p).join();
        });
    }

    private static Optional<ProcessHandle> postmaster(Path workDir) {
        Path pidFile = workDir.resolve("data/postgres/postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(pidFile);
            return lines.isEmpty() ? Optional.empty() : ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                    .filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
