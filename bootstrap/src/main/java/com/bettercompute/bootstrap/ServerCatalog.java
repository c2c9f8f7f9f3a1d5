package com.bettercompute.bootstrap;

import com.bettercompute.bootstrap.catalog.CatalogFile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The catalog a server starts with, read and checked before anything starts: {@code --catalog}'s file, or the
 * built-in demo catalog with a fresh demo token.
 *
 * @param parsed    the catalog and its market section
 * @param demoToken the demo principal's API token when the demo catalog was read, else null; printed once, never logged
 */
record ServerCatalog(CatalogFile.Parsed parsed, String demoToken) {
    static final String DEMO_TOKEN_PLACEHOLDER = "${DEMO_TOKEN}";

    /**
     * @throws IllegalArgumentException when the file cannot be read
     * @throws com.bettercompute.bootstrap.catalog.CatalogException when it is not a valid catalog
     */
    static ServerCatalog read(ServerConfig config) {
        if (config.catalog() == null) {
            String demoToken = newDemoToken();
            return new ServerCatalog(CatalogFile.parseAll(demoCatalog().replace(DEMO_TOKEN_PLACEHOLDER, demoToken)), demoToken);
        }
        String text;
        try {
            text = Files.readString(config.catalog(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("the catalog file " + config.catalog() + " cannot be read: " + e.getMessage());
        }
        return new ServerCatalog(CatalogFile.parseAll(text), null);
    }

    @Override
    public String toString() {
        return "ServerCatalog[demo=" + (demoToken != null) + "]";
    }

    static String demoCatalog() {
        try (InputStream in = ServerCatalog.class.getResourceAsStream("/demo-catalog.yaml")) {
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
