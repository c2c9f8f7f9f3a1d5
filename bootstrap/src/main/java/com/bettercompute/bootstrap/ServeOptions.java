package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.application.incluster.CarryMarketIntoClusters;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The options of {@code serve}, read by picocli: {@code --name VALUE} or {@code --name=VALUE}, each also from the
 * environment as {@code BC_NAME} (upper case, dashes as underscores); the command line wins, an empty value is none.
 * Values are checked here, each refusal naming the option and what it takes.
 */
@Command(name = "serve", usageHelpWidth = 120, sortOptions = false, synopsisHeading = "",
        customSynopsis = "usage: java -jar better-compute.jar [serve] [options]%n",
        description = "Starts the better-compute API server.",
        footerHeading = "%n", footer = "Each option is also an environment variable BC_<NAME> (BC_DB for --db, BC_PUBLIC_URL for"
                + " --public-url, ...); the command line wins.")
final class ServeOptions {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--host", paramLabel = "VALUE", defaultValue = "127.0.0.1",
            description = "address to listen on (default: ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", paramLabel = "VALUE", defaultValue = "8080",
            description = "port of the API; 0 = any free port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--db", paramLabel = "VALUE", defaultValue = Database.DEFAULT_URL,
            description = "embedded-postgres:DIR (a PostgreSQL the server starts itself on DIR), a jdbc:postgresql: URL (a PostgreSQL"
                    + " of your own) or a jdbc:h2: URL (H2, for tests and trials) (default: ${DEFAULT-VALUE})")
    String db;

    @Option(names = "--catalog", paramLabel = "VALUE", description = "catalog file (YAML); default: the built-in demo catalog")
    String catalog;

    @Option(names = "--provider", paramLabel = "VALUE", defaultValue = "simulator",
            description = "simulator (the built-in GKE simulator) or gke (default: ${DEFAULT-VALUE})")
    String provider;

    @Option(names = "--gke-endpoint", paramLabel = "VALUE", description = "HOST:PORT of another GKE API, e.g. a standalone simulator")
    String gkeEndpoint;

    @Option(names = "--filestore-endpoint", paramLabel = "VALUE",
            description = "URL of another Filestore API (http://HOST:PORT on loopback, else https://), e.g. a standalone simulator's;"
                    + " needed with --gke-endpoint where the catalog provisions shared volumes")
    String filestoreEndpoint;

    @Option(names = "--sim-operation-seconds", paramLabel = "VALUE", defaultValue = "20",
            description = "how long the simulator's operations take (default: ${DEFAULT-VALUE})")
    int simOperationSeconds;

    @Option(names = "--reconcile-converging-seconds", paramLabel = "VALUE", defaultValue = "30",
            description = "how often converging clusters are looked at (default: ${DEFAULT-VALUE})")
    int reconcileConvergingSeconds;

    @Option(names = "--reconcile-settled-seconds", paramLabel = "VALUE", defaultValue = "300",
            description = "how often ready and failed clusters are refreshed (default: ${DEFAULT-VALUE})")
    int reconcileSettledSeconds;

    @Option(names = "--replica-id", paramLabel = "VALUE", description = "who holds reconcile leases; default: host name and port")
    String replicaId;

    @Option(names = "--reconcile", paramLabel = "VALUE", defaultValue = "true",
            description = "false: serve the API only, reconcile nothing (another replica does) (default: ${DEFAULT-VALUE})")
    String reconcile;

    @Option(names = "--credential-ttl-seconds", paramLabel = "VALUE", defaultValue = "3600",
            description = "how long a kubeconfig's token lives unless the call says (600 to 86400) (default: ${DEFAULT-VALUE})")
    int credentialTtlSeconds;

    @Option(names = "--data-dir", paramLabel = "VALUE", defaultValue = "./data",
            description = "local state besides the database: the built-in GKE simulator's world (gke-simulator/), and the"
                    + " key-encryption key (secrets/) when --key-encryption-key gives none (default: ${DEFAULT-VALUE})")
    String dataDir;

    @Option(names = "--key-encryption-key", paramLabel = "VALUE",
            description = "32 random bytes in base64 (openssl rand -base64 32) that seal the ID token signing keys in the database;"
                    + " every replica on one database needs the same one. Prefer the environment variable: a command line shows in ps."
                    + " Default: made at the first start and kept in <data-dir>/secrets/key-encryption-key")
    String keyEncryptionKey;

    @Option(names = "--principal-concurrency", paramLabel = "VALUE", defaultValue = "" + RequestLimits.Settings.DEFAULT_CONCURRENT,
            description = "requests one principal may have in flight at once; more are answered 429 (default: ${DEFAULT-VALUE})")
    int principalConcurrency;

    @Option(names = "--principal-rate", paramLabel = "VALUE", defaultValue = "" + RequestLimits.Settings.DEFAULT_PER_SECOND,
            description = "requests a second one principal may send (bursts of as many pass); more are answered 429"
                    + " (default: ${DEFAULT-VALUE})")
    int principalRate;

    @Option(names = "--body-timeout-seconds", paramLabel = "VALUE", defaultValue = "" + RequestLimits.Settings.DEFAULT_BODY_TIMEOUT_SECONDS,
            description = "how long a request body may take to arrive in total; later is answered 408 (default: ${DEFAULT-VALUE})")
    int bodyTimeoutSeconds;

    @Option(names = "--market-tick-seconds", paramLabel = "VALUE", defaultValue = "5",
            description = "how often the market clears (one replica at a time ticks) (default: ${DEFAULT-VALUE})")
    int marketTickSeconds;

    @Option(names = "--in-cluster-concurrency", paramLabel = "VALUE",
            defaultValue = "" + CarryMarketIntoClusters.DEFAULT_CONCURRENCY,
            description = "how many of its tenant clusters a replica's in-cluster market works at once, each on a thread of its"
                    + " own (1 to 1024) (default: ${DEFAULT-VALUE})")
    int inClusterConcurrency;

    @Option(names = "--log-format", paramLabel = "VALUE", defaultValue = "text",
            description = "text, or json: one JSON object a line (default: ${DEFAULT-VALUE})")
    String logFormat;

    @Option(names = "--admission-port", paramLabel = "VALUE",
            description = "HTTPS port of the admission webhooks the market-managed clusters call; 0 = any free port (default: "
                    + ServeCommand.DEFAULT_ADMISSION_PORT + ", any free port when --port is 0)")
    Integer admissionPort;

    @Option(names = "--admission-url", paramLabel = "VALUE",
            description = "https://HOST:PORT the clusters' API servers reach the webhooks at; default: the listen host and the admission port")
    String admissionUrl;

    @Option(names = "--admission-platform-users", paramLabel = "VALUE", defaultValue = AdmissionConfig.SIMULATED_PLATFORM_USER,
            description = "comma-separated user names the clusters give the platform's credential (on GKE: its service account email)"
                    + " (default: ${DEFAULT-VALUE})")
    String admissionPlatformUsers;

    @Option(names = "--public-url", paramLabel = "VALUE",
            description = "the platform's base URL as users and clusters reach it, the sign-in's OpenID Connect issuer (https for a real"
                    + " kube-apiserver); default: http://HOST:PORT of the API")
    String publicUrl;

    /** The command line of {@code serve} over this environment; {@link #config()} then checks the values' ranges. */
    static CommandLine commandLine(Map<String, String> env) {
        CommandLine cli = new CommandLine(new ServeOptions());
        cli.setDefaultValueProvider(arg -> arg instanceof OptionSpec option ? text(env.get(variable(option))) : null);
        return cli;
    }

    /** The usage text with the built-in defaults, never values from the environment (which may hold a database password). */
    static String usage() {
        return new CommandLine(new ServeOptions()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** {@code BC_PUBLIC_URL} for {@code --public-url}. */
    static String variable(OptionSpec option) {
        return "BC_" + option.longestName().substring(2).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    ServerConfig config() {
        String chosen = text(provider) == null ? "simulator" : provider;
        if (!chosen.equals("simulator") && !chosen.equals("gke")) {
            throw new IllegalArgumentException("option --provider must be simulator or gke");
        }
        String key = text(keyEncryptionKey);
        return new ServerConfig(text(host) == null ? "127.0.0.1" : host, range("port", port, 0, 65535), required("db", db),
                text(catalog) == null ? null : Path.of(catalog), chosen, text(gkeEndpoint),
                range("sim-operation-seconds", simOperationSeconds, 0, 86_400),
                range("reconcile-converging-seconds", reconcileConvergingSeconds, 1, 86_400),
                range("reconcile-settled-seconds", reconcileSettledSeconds, 1, 86_400),
                text(replicaId), bool("reconcile", reconcile), range("credential-ttl-seconds", credentialTtlSeconds, 600, 86_400),
                Path.of(required("data-dir", dataDir)),
                new RequestLimits.Settings(range("principal-concurrency", principalConcurrency, 1, 10_000),
                        range("principal-rate", principalRate, 1, 1_000_000),
                        Duration.ofSeconds(range("body-timeout-seconds", bodyTimeoutSeconds, 1, 3_600))),
                range("market-tick-seconds", marketTickSeconds, 1, 3_600), ServeCommand.publicUrl(text(publicUrl)), text(filestoreEndpoint),
                key == null ? null : KeyEncryptionKey.fromBase64(key, "option --key-encryption-key (BC_KEY_ENCRYPTION_KEY)"),
                range("in-cluster-concurrency", inClusterConcurrency, 1, 1024));
    }

    AdmissionConfig admission(ServerConfig config) {
        int admission = admissionPort != null ? range("admission-port", admissionPort, 0, 65535)
                : config.port() == 0 ? 0 : ServeCommand.DEFAULT_ADMISSION_PORT;
        String url = text(admissionUrl);
        if (url != null && !url.startsWith("https://")) {
            throw new IllegalArgumentException("option --admission-url must start with https://");
        }
        return new AdmissionConfig(admission, url, Arrays.stream(admissionPlatformUsers == null ? new String[0]
                : admissionPlatformUsers.split(",")).map(String::trim).filter(u -> !u.isEmpty()).collect(Collectors.toSet()));
    }

    String logFormat() {
        return LogFormat.parse(text(logFormat) == null ? "text" : logFormat);
    }

    private static String required(String option, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("option --" + option + " needs a value");
        }
        return value;
    }

    private static int range(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("option --" + option + " must be from " + min + " to " + max);
        }
        return value;
    }

    private static boolean bool(String option, String value) {
        if (!"true".equals(value) && !"false".equals(value)) {
            throw new IllegalArgumentException("option --" + option + " must be true or false");
        }
        return value.equals("true");
    }

    /** An empty value is none, as an empty BC_NAME is: {@code --catalog ""} is the demo catalog. */
    private static String text(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
