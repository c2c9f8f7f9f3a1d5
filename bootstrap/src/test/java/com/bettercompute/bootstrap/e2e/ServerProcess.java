package com.bettercompute.bootstrap.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real server ({@code Main}, the test class path) in a process of its own, for crash tests: started
 * in a working directory of the test's choosing (so the embedded default's {@code ./data} is the test's),
 * its stderr and stdout appended to a log file, and killed with SIGKILL. A PostgreSQL the killed server had started
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

    /**
     * Starts {@code Main} with {@code args} in {@code workDir} and waits until it listens: at most {@link #START},
     * even when the process prints nothing and does not exit (a thread of its own reads its output, so a
     * silent server cannot block the test), after which it is killed and the test fails with the log's end.
     */
    static ServerProcess start(Path workDir, Path log, List<String> args) throws IOException, InterruptedException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", classpath, "com.bettercompute.bootstrap.Main"));
        command.addAll(args);
        Process process = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        CompletableFuture<String> listening = new CompletableFuture<>();
        AtomicReference<String> simulatorRest = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 Writer copy = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                String line;
                while ((line = out.readLine()) != null) {
                    // stdout goes to the log too: the banners, and the server's log lines when a logback-test.xml
                    // on the class path sends them there
                    copy.write(line);
                    copy.write('\n');
                    copy.flush();
                    Matcher simulator = SIMULATOR.matcher(line);
                    if (simulator.find()) {
                        simulatorRest.set(simulator.group(1));
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        listening.complete("http://127.0.0.1:" + m.group(1));
                    }
                }
            } catch (IOException ignored) {
                // the process was killed
            }
            listening.complete(null);
        }, "server-output");
        reader.setDaemon(true);
        reader.start();
        String base;
        try {
            base = listening.get(START.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            base = null;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        if (base == null) {
            boolean exited = process.waitFor(5, TimeUnit.SECONDS);
            String threads = exited ? "" : "\nits threads:\n" + threadDump(process.pid());
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("the server did not start ("
                    + (exited ? "it exited " + process.exitValue() : "still not listening after " + START.toSeconds() + " s: killed")
                    + "); the end of " + log + ":\n" + tail(log, 60) + threads);
        }
        return new ServerProcess(process, base, simulatorRest.get());
    }

    /** What a silent server's threads are doing ({@code jcmd PID Thread.print}), for a failure's message. */
    static String threadDump(long pid) {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
            CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
                try {
                    return jcmd.getInputStream().readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
                return "(jcmd did not answer within 30 s)";
            }
            return new String(out.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        } catch (IOException | ExecutionException | TimeoutException e) {
            return "(no thread dump: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump: interrupted)";
        }
    }

    /** The last {@code lines} lines of a log, for a failure's message. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot be read: " + e + ")";
        }
    }

    String baseUrl() {
        return base;
    }

    /** The in-process GKE simulator's REST front end, as its banner named it; null when it runs none. */
    String simulatorRest() {
        return simulatorRest;
    }

    /** What the running server's threads are doing now, for a failure's message. */
    String threads() {
        return threadDump(process.pid());
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
