package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.ApiServer;
import com.bettercompute.adapters.http.ApiUseCases;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.catalog.LoadCatalog;
import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.cluster.DeleteCluster;
import com.bettercompute.application.cluster.GetCluster;
import com.bettercompute.application.cluster.ListClusters;
import com.bettercompute.application.cluster.UpdateCluster;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.bootstrap.catalog.CatalogFile;
import com.bettercompute.domain.catalog.Catalog;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;

/**
 * The product wired by hand: the database, the catalog, the use cases and the HTTP API. One instance
 * is one running server; {@link #close()} stops it.
 */
public final class Server implements AutoCloseable {
    static final String DEMO_TOKEN_PLACEHOLDER = "${DEMO_TOKEN}";

    private final Database database;
    private final ApiServer api;
    private final int port;
    private final String demoToken;

    private Server(Database database, ApiServer api, int port, String demoToken) {
        this.database = database;
        this.api = api;
        this.port = port;
        this.demoToken = demoToken;
    }

    /** Opens the database, loads the catalog, starts the API. A bad catalog stops the start (CatalogException). */
    public static Server start(ServerConfig config, Clock clock) {
        String demoToken = null;
        String catalogText;
        if (config.catalog() == null) {
            demoToken = newDemoToken();
            catalogText = demoCatalog().replace(DEMO_TOKEN_PLACEHOLDER, demoToken);
        } else {
            try {
                catalogText = Files.readString(config.catalog(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("the catalog file " + config.catalog() + " cannot be read: " + e.getMessage());
            }
        }
        Catalog catalog = CatalogFile.parse(catalogText);
        Database db = Database.open(config.db());
        try {
            new LoadCatalog(db.transactions(), db.catalog(), db.access()).load(catalog);
            Authorizer authorizer = new Authorizer(db.access());
            ApiUseCases useCases = new ApiUseCases(
                    new Authenticate(db.access()),
                    new CreateCluster(db.transactions(), db.clusters(), db.catalog(), db.access(), db.outbox(), authorizer, clock),
                    new ListClusters(db.clusters(), authorizer),
                    new GetCluster(db.clusters(), authorizer),
                    new UpdateCluster(db.transactions(), db.clusters(), authorizer, clock),
                    new DeleteCluster(db.transactions(), db.clusters(), db.outbox(), authorizer, clock),
                    new ReadEvents(db.outbox(), authorizer));
            ApiServer api = new ApiServer(useCases);
            int port = api.start(config.host(), config.port());
            return new Server(db, api, port, demoToken);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    /** The demo principal's API token when the demo catalog was loaded, else null. Printed once, never logged. */
    public String demoToken() {
        return demoToken;
    }

    @Override
    public void close() {
        api.stop();
        database.close();
    }

    static String demoCatalog() {
        try (InputStream in = Server.class.getResourceAsStream("/demo-catalog.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String newDemoToken() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return "bc_demo_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
