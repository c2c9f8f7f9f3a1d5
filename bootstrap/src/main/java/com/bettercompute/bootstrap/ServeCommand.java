package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.bootstrap.catalog.CatalogException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code serve}, the default sub-command: the API server. */
final class ServeCommand {
    static final List<Options.Spec> SPECS = List.of(
            new Options.Spec("host", "127.0.0.1", "address to listen on"),
            new Options.Spec("port", "8080", "port of the API; 0 = any free port"),
            new Options.Spec("db", Database.DEFAULT_URL, "embedded-postgres:DIR (a PostgreSQL the server starts itself on DIR),"
                    + " a jdbc:postgresql: URL (a PostgreSQL of your own) or a jdbc:h2: URL (H2, for tests and trials)"),
            new Options.Spec("catalog", null, "catalog file (YAML); default: the built-in demo catalog"),
            new Options.Spec("provider", "simulator", "simulator (the built-in GKE simulator) or gke"),
            new Options.Spec("gke-endpoint", null, "HOST:PORT of another GKE API, e.g. a standalone simulator"),
            new Options.Spec("sim-operation-seconds", "20", "how long the simulator's operations take"),
            new Options.Spec("reconcile-converging-seconds", "30", "how often converging clusters are looked at"),
            new Options.Spec("reconcile-settled-seconds", "300", "how often ready and failed clusters are refreshed"),
            new Options.Spec("replica-id", null, "who holds reconcile leases; default: host name and port"),
            new Options.Spec("reconcile", "true", "false: serve the API only, reconcile nothing (another replica does)"),
            new Options.Spec("credential-ttl-seconds", "3600", "how long a kubeconfig's token lives unless the call says (600 to 86400)"));

    private ServeCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        ServerConfig config;
        try {
            Options o = Options.parse(args, SPECS, env);
            if (o.help()) {
                out.print(Options.usage("[serve]", "Starts the better-compute API server.", SPECS));
                return 0;
            }
            if (!o.positional().isEmpty()) {
                throw new IllegalArgumentException("unexpected argument '" + o.positional().get(0) + "' (see --help)");
            }
            String provider = o.get("provider").orElse("simulator");
            if (!provider.equals("simulator") && !provider.equals("gke")) {
                throw new IllegalArgumentException("option --provider must be simulator or gke");
            }
            config = new ServerConfig(o.get("host").orElse("127.0.0.1"), o.integer("port", 0, 65535),
                    o.get("db").orElseThrow(), o.get("catalog").map(Path::of).orElse(null), provider,
                    o.get("gke-endpoint").orElse(null), o.integer("sim-operation-seconds", 0, 86_400),
                    o.integer("reconcile-converging-seconds", 1, 86_400), o.integer("reconcile-settled-seconds", 1, 86_400),
                    o.get("replica-id").orElse(null), bool(o.get("reconcile").orElse("true"), "reconcile"),
                    o.integer("credential-ttl-seconds", 600, 86_400));
        } catch (IllegalArgumentException e) {
            err.println("better-compute: " + e.getMessage());
            return 2;
        }
        Server server;
        try {
            server = Server.start(config, Clock.systemUTC());
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
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "shutdown"));
        server.simulatorBanner().ifPresent(out::println);
        out.println("listening on http://" + displayHost(config.host()) + ":" + server.port());
        if (server.demoToken() != null) {
            out.println("demo catalog loaded: tenant 'demo', pool " + DEMO_POOL + ", zones us-central1-a/b/c");
            out.println("demo API token (user:demo@demo.example, kubernetes-admin on tenant demo): " + server.demoToken());
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

    private static boolean bool(String value, String option) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("option --" + option + " must be true or false");
        }
        return value.equals("true");
    }

    private static String displayHost(String host) {
        return host.equals("0.0.0.0") ? "127.0.0.1" : host;
    }
}
