package com.bettercompute.bootstrap.gke;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.adapters.gke.simulator.Pause;
import com.bettercompute.bootstrap.CommandLines;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code better-compute.jar gke-simulator [--grpc-port P1] [--rest-port P2] [--filestore-port P3] [--sim-operation-seconds S]
 * [--state-dir DIR]}: the GKE simulator and its Filestore API alone, on the wall clock, until the process is killed.
 */
public final class GkeSimulatorCommand {
    /** Waits with the thread: the one place the simulator's latency fault really sleeps. */
    public static final Pause SLEEP = duration -> {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    };

    private GkeSimulatorCommand() {
    }

    /** The parsed options. */
    record Options(int grpcPort, int restPort, int filestorePort, Duration operationDuration, Path stateDir) {
        /** The options of these arguments; a refusal names the option and what it takes, {@code --help} has no message. */
        static Options parse(String[] args) {
            CommandLine cli = new CommandLine(new Flags());
            try {
                cli.parseArgs(args);
            } catch (CommandLine.ParameterException e) {
                throw new IllegalArgumentException(CommandLines.refusal(e), e);
            }
            if (cli.isUsageHelpRequested()) {
                throw new IllegalArgumentException((String) null);
            }
            Flags flags = cli.getCommand();
            if (flags.operationSeconds < 0 || flags.operationSeconds > 86400 || Double.isNaN(flags.operationSeconds)) {
                throw new IllegalArgumentException("--sim-operation-seconds takes 0 to 86400 seconds, not \"" + flags.operationSeconds + "\"");
            }
            if (flags.stateDir != null && flags.stateDir.isBlank()) {
                throw new IllegalArgumentException("--state-dir takes a directory, not an empty value");
            }
            return new Options(port("--grpc-port", flags.grpcPort), port("--rest-port", flags.restPort),
                    port("--filestore-port", flags.filestorePort), Duration.ofMillis(Math.round(flags.operationSeconds * 1000)),
                    flags.stateDir == null ? null : Path.of(flags.stateDir));
        }

        private static int port(String option, int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException(option + " takes a port from 0 to 65535, not \"" + port + "\"");
            }
            return port;
        }
    }

    @Command(name = "gke-simulator", usageHelpWidth = 120, sortOptions = false, synopsisHeading = "",
            customSynopsis = "usage: better-compute.jar gke-simulator [--grpc-port P1] [--rest-port P2] [--filestore-port P3]"
                    + " [--sim-operation-seconds S] [--state-dir DIR]%n",
            footerHeading = "%n", footer = "Faults: POST http://127.0.0.1:<P2>/simulator/faults/<fault> (see docs/operators/gke-simulator.md).")
    static final class Flags {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
        boolean help;

        @Option(names = "--grpc-port", paramLabel = "P1", description = "plaintext gRPC port on 127.0.0.1 (default 0: any free port)")
        int grpcPort;

        @Option(names = "--rest-port", paramLabel = "P2", description = "REST port on 127.0.0.1 (default 0: any free port)")
        int restPort;

        @Option(names = "--filestore-port", paramLabel = "P3",
                description = "the Filestore API's REST port on 127.0.0.1 (default 0: any free port)")
        int filestorePort;

        @Option(names = "--sim-operation-seconds", paramLabel = "S", defaultValue = "20",
                description = "how long each GKE and Filestore operation takes (default 20; 0 completes at once)")
        double operationSeconds;

        @Option(names = "--state-dir", paramLabel = "DIR", description = "keep clusters, node pools, operations and file shares in DIR"
                + " across restarts (default: in memory, the shares in a temporary directory)")
        String stateDir;
    }

    static String usage() {
        return new CommandLine(new Flags()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** The GKE simulator and its Filestore API, running on one clock and one state directory; closed together. */
    record Running(GkeSimulator gke, FilestoreSimulator filestore) implements AutoCloseable {
        @Override
        public void close() {
            try (filestore) {
                gke.close();
            }
        }
    }

    /** Starts the simulators as the options say and prints their endpoints on {@code out}, a line each. */
    static Running start(String[] args, PrintStream out) {
        Options options = Options.parse(args);
        Clock clock = Clock.systemUTC();
        GkeSimulator simulator = GkeSimulator.start(clock, options.operationDuration(), options.grpcPort(), options.restPort(), SLEEP,
                options.stateDir());
        FilestoreSimulator filestore;
        try {
            filestore = FilestoreSimulator.start(clock, options.operationDuration(), options.filestorePort(), options.stateDir());
        } catch (RuntimeException e) {
            simulator.close();
            throw e;
        }
        out.println(simulator.banner());
        out.println(filestore.banner());
        out.flush();
        return new Running(simulator, filestore);
    }

    /** The sub-command: serves until killed. Exits 2 on bad options, 1 if it cannot listen. */
    public static void run(String[] args) {
        quietTransportLogs();
        Running simulator;
        try {
            simulator = start(args, System.out);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null) {
                System.err.println("gke-simulator: " + e.getMessage());
            }
            System.err.print(usage());
            System.exit(e.getMessage() == null ? 0 : 2);
            return;
        } catch (RuntimeException e) {
            System.err.println("gke-simulator: " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.close();
            stopped.countDown();
        }, "gke-simulator-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** gRPC and Netty log every frame at DEBUG under logback's default configuration. */
    private static void quietTransportLogs() {
        for (String name : new String[] {"io.grpc", "io.netty", "io.grpc.netty.shaded"}) {
            if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger && logger.getLevel() == null) {
                logger.setLevel(ch.qos.logback.classic.Level.INFO);
            }
        }
    }
}
