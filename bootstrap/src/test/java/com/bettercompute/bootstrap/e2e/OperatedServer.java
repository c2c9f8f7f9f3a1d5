package com.bettercompute.bootstrap.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's {@code main} in a JVM of its own, as an operator runs it, in the directory of its output file (so its
 * {@code ./data} is the test's): its standard output and error go to that file, and {@link #terminate()} sends it SIGTERM as an orchestrator does.
 */
final class OperatedServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    final Process process;
    final Path output;
    final String baseUrl;

    private OperatedServer(Process process, Path output, String baseUrl) {
        this.process = process;
        this.output = output;
        this.baseUrl = baseUrl;
    }

    /** Starts {@code main} with these options and waits (up to 240 s: a machine loaded by other builds starts slowly) until it listens. */
    static OperatedServer start(Path output, String... options) throws IOException, InterruptedException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, "com.bettercompute.bootstrap.Main"));
        command.addAll(List.of(options));
        // in the directory of its output (the test's own): the embedded default's ./data is the test's, never another
        // test's running at the same time in the other test JVM
        Process process = new ProcessBuilder(command).directory(output.toAbsolutePath().getParent().toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        while (System.nanoTime() < deadline && process.isAlive()) {
            Matcher m = LISTENING.matcher(Files.readString(output, StandardCharsets.UTF_8));
            if (m.find()) {
                return new OperatedServer(process, output, "http://127.0.0.1:" + m.group(1));
            }
            Thread.sleep(100);
        }
        String state = process.isAlive() ? "still starting after 240 s" : "exited with " + process.exitValue();
        process.destroyForcibly();
        throw new AssertionError("the server did not start (" + state + "):\n" + Files.readString(output, StandardCharsets.UTF_8));
    }

    /** SIGTERM; then the exit code, or null when it has not exited within {@code seconds}. */
    Integer terminate(int seconds) throws InterruptedException {
        process.destroy();
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : null;
    }

    /**
     * Waits (up to {@code seconds}) until a line of its output holds {@code text}, looking every 20 ms: a test that
     * acts on the moment a line is written (a stop just as something starts) gets there soon after it.
     */
    void awaitLine(String text, int seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (lines().stream().anyMatch(l -> l.contains(text))) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no line \"" + text + "\" in " + seconds + " s");
    }

    List<String> lines() throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(output), StandardCharsets.UTF_8))) {
            return r.lines().toList();
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
