package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.bootstrap.catalog.CatalogException;

import picocli.CommandLine;
import sun.misc.Signal;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code serve}, the default sub-command: the API server. */
final class ServeCommand {
    static final int DEFAULT_ADMISSION_PORT = 8443;
    /** A stop (SIGTERM) that has not ended by then is cut short, inside the 30 s an orchestrator waits. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(28);

    private ServeCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        ServerConfig config;
        AdmissionConfig admission;
        String logFormat;
        try {
            CommandLine cli = ServeOptions.commandLine(env);
            cli.parseArgs(args);
            if (cli.isUsageHelpRequested()) {
                out.print(ServeOptions.usage());
                return 0;
            }
            ServeOptions options = cli.getCommand();
            config = options.config();
            admission = options.admission(config);
            logFormat = options.logFormat();
        } catch (CommandLine.ParameterException e) {
            err.println("better-compute: " + CommandLines.refusal(e));
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("better-compute: " + e.getMessage());
            return 2;
        }
        LogFormat.apply(logFormat);
        Server server;
        try {
            server = Server.start(config, admission, Clock.systemUTC());
        } catch (CatalogException e) {
            err.println("better-compute: the catalog " + (config.catalog() == null ? "(built-in demo)" : config.catalog()) + " cannot be loaded: " + e.getMessage());
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("better-compute: " + e.getMessage());
            return 2;
        } catch (Database.CannotOpen e) {
            err.println("better-compute: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        stopOnSignal(server, stopped, err);
        server.simulatorBanner().ifPresent(out::println);
        server.filestoreSimulator().ifPresent(f -> out.println(f.banner()));
        out.println("listening on http://" + config.urlHost() + ":" + server.port());
        out.println("admission webhooks on https://" + config.urlHost() + ":" + server.admissionPort());
        if (server.demoToken() != null) {
            out.println("demo catalog loaded: tenant 'demo', pool " + DEMO_POOL + ", zones us-central1-a/b/c");
            out.println("demo API token (user:demo@demo.example, kubernetes-admin on tenant demo): " + server.demoToken());
            out.println("demo API token (user:rival@rival.example, kubernetes-admin on tenant rival): " + server.demoToken() + "-rival");
            out.println("demo operator token (service:demo-ops): " + server.demoToken() + "-ops");
            out.println("demo market: pool us-central1/h100-8x, 8 nodes of 8 GPUs, reserve 1.20 USD per GPU-hour");
        }
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    static final String DEMO_POOL = "pool_00000000000000000000000001";

    /**
     * SIGTERM and SIGINT stop the server in order ({@link Server#close()}) and {@code serve} returns 0, so the
     * process exits 0: a JVM left to its default handling would exit 143 after its shutdown hooks. Any other
     * way out of the JVM still closes the server through a shutdown hook. A stop longer than
     * {@link #STOP_LIMIT} is cut short with exit code 1.
     */
    private static void stopOnSignal(Server server, CountDownLatch stopped, PrintStream err) {
        Runnable stop = () -> {
            Thread watchdog = new Thread(() -> {
                try {
                    Thread.sleep(STOP_LIMIT.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                err.println("better-compute: the stop took more than " + STOP_LIMIT.toSeconds() + " s; exiting now");
                err.flush();
                Runtime.getRuntime().halt(1);
            }, "stop-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
            server.close();
            LogFormat.flush();
            watchdog.interrupt();
            stopped.countDown();
        };
        for (String signal : List.of("TERM", "INT")) {
            try {
                Signal.handle(new Signal(signal), s -> stop.run());
            } catch (IllegalArgumentException taken) {
                // the JVM keeps this signal (e.g. under -Xrs): the shutdown hook still stops in order
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "shutdown"));
    }

    /** The public URL as given, without a trailing slash: an absolute http or https URL with no query or fragment. */
    static String publicUrl(String url) {
        if (url == null) {
            return null;
        }
        java.net.URI uri;
        try {
            uri = new java.net.URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("option --public-url must be a URL such as https://nationalcompute.example");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("option --public-url must be an http or https URL with a host and no query, such as https://nationalcompute.example");
        }
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
