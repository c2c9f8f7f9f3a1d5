package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.bootstrap.catalog.CatalogException;

import sun.misc.Signal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code serve}, the default sub-command: the API server. */
final class ServeCommand {
    static final int DEFAULT_ADMISSION_PORT = 8443;
    static final List<Options.Spec> SPECS = List.of(
            new Options.Spec("host", "127.0.0.1", "address to listen on"),
            new Options.Spec("port", "8080", "port of the API; 0 = any free port"),
            new Options.Spec("db", Database.DEFAULT_URL, "embedded-postgres:DIR (a PostgreSQL the server starts itself on DIR),"
                    + " a jdbc:postgresql: URL (a PostgreSQL of your own) or a jdbc:h2: URL (H2, for tests and trials)"),
            new Options.Spec("catalog", null, "catalog file (YAML); default: the built-in demo catalog"),
            new Options.Spec("provider", "simulator", "simulator (the built-in GKE simulator) or gke"),
            new Options.Spec("gke-endpoint", null, "HOST:PORT of another GKE API, e.g. a standalone simulator"),
            new Options.Spec("filestore-endpoint", null, "URL of another Filestore API (http://HOST:PORT on loopback, else https://),"
                    + " e.g. a standalone simulator's; needed with --gke-endpoint where the catalog provisions shared volumes"),
            new Options.Spec("sim-operation-seconds", "20", "how long the simulator's operations take"),
            new Options.Spec("reconcile-converging-seconds", "30", "how often converging clusters are looked at"),
            new Options.Spec("reconcile-settled-seconds", "300", "how often ready and failed clusters are refreshed"),
            new Options.Spec("replica-id", null, "who holds reconcile leases; default: host name and port"),
            new Options.Spec("reconcile", "true", "false: serve the API only, reconcile nothing (another replica does)"),
            new Options.Spec("credential-ttl-seconds", "3600", "how long a kubeconfig's token lives unless the call says (600 to 86400)"),
            new Options.Spec("data-dir", "./data", "local state besides the database: the built-in GKE simulator's world (gke-simulator/),"
                    + " and the key-encryption key (secrets/) when --key-encryption-key gives none"),
            new Options.Spec("key-encryption-key", null, "32 random bytes in base64 (openssl rand -base64 32) that seal the ID token signing"
                    + " keys in the database; every replica on one database needs the same one. Prefer the environment variable: a command"
                    + " line shows in ps. Default: made at the first start and kept in <data-dir>/secrets/key-encryption-key"),
            new Options.Spec("principal-concurrency", Integer.toString(RequestLimits.Settings.DEFAULT_CONCURRENT),
                    "requests one principal may have in flight at once; more are answered 429"),
            new Options.Spec("principal-rate", Integer.toString(RequestLimits.Settings.DEFAULT_PER_SECOND),
                    "requests a second one principal may send (bursts of as many pass); more are answered 429"),
            new Options.Spec("body-timeout-seconds", Integer.toString(RequestLimits.Settings.DEFAULT_BODY_TIMEOUT_SECONDS),
                    "how long a request body may take to arrive in total; later is answered 408"),
            new Options.Spec("market-tick-seconds", "5", "how often the market clears (one replica at a time ticks)"),
            new Options.Spec("log-format", "text", "text, or json: one JSON object a line"),
            new Options.Spec("admission-port", null, "HTTPS port of the admission webhooks the market-managed clusters call; "
                    + "0 = any free port (default: " + DEFAULT_ADMISSION_PORT + ", any free port when --port is 0)"),
            new Options.Spec("admission-url", null, "https://HOST:PORT the clusters' API servers reach the webhooks at; default: the listen host and the admission port"),
            new Options.Spec("admission-platform-users", AdmissionConfig.SIMULATED_PLATFORM_USER,
                    "comma-separated user names the clusters give the platform's credential (on GKE: its service account email)"),
            new Options.Spec("public-url", null, "the platform's base URL as users and clusters reach it, the sign-in's OpenID Connect"
                    + " issuer (https for a real kube-apiserver); default: http://HOST:PORT of the API"));

    /** A stop (SIGTERM) that has not ended by then is cut short, inside the 30 s an orchestrator waits. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(28);

    private ServeCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        ServerConfig config;
        AdmissionConfig admission;
        String logFormat;
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
                    o.integer("credential-ttl-seconds", 600, 86_400),
                    Path.of(o.get("data-dir").orElseThrow()),
                    new RequestLimits.Settings(o.integer("principal-concurrency", 1, 10_000), o.integer("principal-rate", 1, 1_000_000),
                            java.time.Duration.ofSeconds(o.integer("body-timeout-seconds", 1, 3_600))),
                    o.integer("market-tick-seconds", 1, 3_600), publicUrl(o.get("public-url").orElse(null)),
                    o.get("filestore-endpoint").orElse(null),
                    o.get("key-encryption-key").map(k -> KeyEncryptionKey.fromBase64(k, "option --key-encryption-key (BC_KEY_ENCRYPTION_KEY)"))
                            .orElse(null));
            int admissionPort = o.get("admission-port").isPresent() ? o.integer("admission-port", 0, 65535)
                    : config.port() == 0 ? 0 : DEFAULT_ADMISSION_PORT;
            admission = new AdmissionConfig(admissionPort, o.get("admission-url").orElse(null),
                    java.util.Arrays.stream(o.get("admission-platform-users").orElse("").split(","))
                            .map(String::trim).filter(u -> !u.isEmpty()).collect(java.util.stream.Collectors.toSet()));
            if (admission.url() != null && !admission.url().startsWith("https://")) {
                throw new IllegalArgumentException("option --admission-url must start with https://");
            }
            logFormat = LogFormat.parse(o.get("log-format").orElse("text"));
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

    private static boolean bool(String value, String option) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("option --" + option + " must be true or false");
        }
        return value.equals("true");
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
