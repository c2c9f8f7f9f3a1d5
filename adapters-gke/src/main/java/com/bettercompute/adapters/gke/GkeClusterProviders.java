package com.bettercompute.adapters.gke;

import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Builds a {@link GkeClusterProvider} for real GKE, or for a GKE API at an address as its {@link Endpoint} says.
 */
public final class GkeClusterProviders {
    private static final String CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

    private GkeClusterProviders() {
    }

    /** How the calls to a GKE API at an address travel. */
    public enum Transport {
        /** TLS, every call carrying the platform's Google credentials: GKE. */
        TLS,
        /** Plaintext, the calls carrying no credentials (gRPC sends none in the clear): an API on this machine. */
        PLAINTEXT
    }

    /**
     * A GKE API at an address, as the server's configuration names it.
     *
     * @param hostPort    {@code HOST:PORT} of its gRPC endpoint
     * @param transport   how the calls travel
     * @param credentials the platform's Google identity: on every call over {@link Transport#TLS}, and over either
     *                    transport what the clusters' Kubernetes APIs are called with
     *                    ({@link GkeClusterProvider#platformAccessToken()}); null: application-default credentials over
     *                    TLS, none over plaintext
     */
    public record Endpoint(String hostPort, Transport transport, GoogleCredentials credentials) {
        public Endpoint {
            Objects.requireNonNull(hostPort, "hostPort");
            Objects.requireNonNull(transport, "transport");
        }

        /** Names the address and the transport, never the credentials (they hold a token). */
        @Override
        public String toString() {
            return "Endpoint[" + hostPort + ", " + transport + (credentials == null ? "" : ", with credentials") + "]";
        }
    }

    /** Real GKE ({@code container.googleapis.com}) with application-default credentials ({@code --provider gke}). */
    public static GkeClusterProvider google() {
        return create(ClusterManagerSettings.newBuilder(), null);
    }

    /**
     * Real GKE with one account's own credentials: a service-account key file (JSON) that the operator
     * keeps outside the catalog and the database; the catalog names only its path.
     */
    public static GkeClusterProvider google(Path credentialsFile) {
        GoogleCredentials credentials;
        try (InputStream in = Files.newInputStream(credentialsFile)) {
            credentials = GoogleCredentials.fromStream(in).createScoped(CLOUD_PLATFORM);
        } catch (IOException e) {
            // The message names the file, never its content.
            throw new IllegalArgumentException("the credentials file " + credentialsFile + " cannot be read as Google credentials");
        }
        return create(ClusterManagerSettings.newBuilder().setCredentialsProvider(FixedCredentialsProvider.create(credentials)), null);
    }

    /** GKE's API over gRPC at {@code endpoint}, over its transport and as its credentials. */
    public static GkeClusterProvider grpc(Endpoint endpoint) {
        ClusterManagerSettings.Builder settings = ClusterManagerSettings.newBuilder().setEndpoint(endpoint.hostPort());
        switch (endpoint.transport()) {
            case PLAINTEXT -> settings.setCredentialsProvider(NoCredentialsProvider.create())
                    .setTransportChannelProvider(InstantiatingGrpcChannelProvider.newBuilder().setEndpoint(endpoint.hostPort())
                            .setChannelConfigurator(ManagedChannelBuilder::usePlaintext).build());
            case TLS -> {
                if (endpoint.credentials() != null) {
                    settings.setCredentialsProvider(FixedCredentialsProvider.create(endpoint.credentials()));
                }
            }
        }
        return create(settings, endpoint.credentials());
    }

    private static GkeClusterProvider create(ClusterManagerSettings.Builder settings, GoogleCredentials identity) {
        try {
            return new GkeClusterProvider(ClusterManagerClient.create(settings.build()), identity);
        } catch (IOException e) {
            throw new UncheckedIOException("the GKE client could not be created: " + e.getMessage(), e);
        }
    }
}
