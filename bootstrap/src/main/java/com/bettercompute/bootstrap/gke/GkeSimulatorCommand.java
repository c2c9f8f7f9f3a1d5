package com.bettercompute.bootstrap.gke;

import com.bettercompute.adapters.gke.simulator.FilestoreSimulator;
import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.adapters.gke.simulator.Pause;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;

/**
 * {@code better-compute.jar gke-simulator [--grpc-port P1] [--rest-port P2] [--filestore-port P3] [--sim-operation-seconds S]
 * [--state-dir DIR]}: the GKE simulator and its Filestore API alone, on the wall clock, until the process is killed.
 */
public final class GkeSimulatorCommand {
    static final String USAGE = String.join("\n",
            "usage: better-compute.jar gke-simulator [--grpc-port P1] [--rest-port P2] [--filestore-port P3] [--sim-operation-seconds S] "
                    + "[--state-dir DIR]",
            "  --grpc-port P1              plaintext gRPC port on 127.0.0.1 (default 0: any free port)",
            "  --rest-port P2              REST port on 127.0.0.1 (default 0: any free port)",
            "  --filestore-port P3         the Filestore API's REST port on 127.0.0.1 (default 0: any free port)",
            "  --sim-operation-seconds S   how long each GKE and Filestore operation takes (default 20; 0 completes at once)",
            "  --state-dir DIR             keep clusters, node pools, operations and file shares in DIR across restarts",
            "                              (default: in memory, the shares in a temporary directory)",
            "Faults: POST http://127.0.0.1:<P2>/simulator/faults/<fault> (see docs/operators/gke-simulator.md).");

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
        static Options parse(String[] args) {
            int grpc = 0;
            int rest = 0;
            int filestore = 0;
            Duration operation = Duration.ofSeconds(20);
            Path state = null;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    value = arg.substring(eq + 1);
                    arg = arg.substring(0, eq);
                }
                if (arg.equals("--help") || arg.equals("-h")) {
                    throw new IllegalArgumentException((String) null);
                }
                if (value == null) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("option " + arg + " needs a value");
                    }
                    value = args[++i];
                }
                switch (arg) {
                    case "--grpc-port" -> grpc = port(arg, value);
                    case "--rest-port" -> rest = port(arg, value);
                    case "--filestore-port" -> filestore = port(arg, value);
                    case "--sim-operation-seconds" -> {
                        try {
                            double seconds = Double.parseDouble(value);
                            if (seconds < 0 || seconds > 86400) {
                                throw new NumberFormatException();
                            }
                            operation = Duration.ofMillis(Math.round(seconds * 1000));
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--sim-operation-seconds takes 0 to 86400 seconds, not \"" + value + "\"");
                        }
                    }
                    case "--state-dir" -> {
                        if (value.isBlank()) {
                            throw new IllegalArgumentException("--state-dir takes a directory, not an empty value");
                        }
                        state = Path.of(value);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            }
            return new Options(grpc, rest, filestore, operation, state);
        }

        private static int port(String option, String value) {
            try {
                int port = Integer.parseInt(value);
                if (port < 0 || port > 65535) {
                    throw new NumberFormatException();
                }
                return port;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " takes a port from 0 to 65535, not \"" + value + "\"");
            }
        }
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
            System.err.println(USAGE);
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
