package com.bettercompute.adapters.gke;

import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.api.gax.httpjson.InstantiatingHttpJsonChannelProvider;
import com.google.cloud.container.v1.ClusterManagerClient;
import com.google.cloud.container.v1.ClusterManagerSettings;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Builds a {@link GkeClusterProvider} for real GKE or for any GKE API at an address (a standalone
 * or in-process simulator).
 */
public final class GkeClusterProviders {
    private static final String CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
    private static final Set<String> LOOPBACK = Set.of("127.0.0.1", "localhost", "::1", "[::1]");

    private GkeClusterProviders() {
    }

    /** Real GKE ({@code container.googleapis.com}) with application-default credentials ({@code --provider gke}). */
    public static GkeClusterProvider google() {
        return create(ClusterManagerSettings.newBuilder());
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
        return create(ClusterManagerSettings.newBuilder().setCredentialsProvider(FixedCredentialsProvider.create(credentials)));
    }

    /**
     * GKE's API over gRPC at {@code HOST:PORT} ({@code --gke-endpoint}): plaintext and no credentials
     * when the host is loopback (a simulator), TLS and application-default credentials otherwise.
     */
    public static GkeClusterProvider grpc(String hostPort) {
        return grpc(hostPort, null);
    }

    /**
     * As {@link #grpc(String)}, with the platform's token for the clusters' Kubernetes APIs from
     * {@code platformToken} (a simulator's clusters accept the simulator's own, not a Google token).
     */
    public static GkeClusterProvider grpc(String hostPort, Supplier<String> platformToken) {
        return grpc(hostPort, platformToken, null);
    }

    /**
     * As {@link #grpc(String, Supplier)}, telling {@code onCall} the method name of every call sent to GKE (such as
     * {@code GetCluster}), so a load run can count the provider calls a pass makes. Null: not told.
     */
    public static GkeClusterProvider grpc(String hostPort, Supplier<String> platformToken, Consumer<String> onCall) {
        ClusterManagerSettings.Builder settings = ClusterManagerSettings.newBuilder().setEndpoint(hostPort);
        InstantiatingGrpcChannelProvider.Builder channel = InstantiatingGrpcChannelProvider.newBuilder().setEndpoint(hostPort);
        if (onCall != null) {
            channel.setInterceptorProvider(() -> List.of(new ClientInterceptor() {
                @Override
                public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
                    onCall.accept(method.getBareMethodName());
                    return next.newCall(method, options);
                }
            }));
        }
        if (isLoopback(hostPort)) {
            settings.setCredentialsProvider(NoCredentialsProvider.create())
                    .setTransportChannelProvider(channel.setChannelConfigurator(ManagedChannelBuilder::usePlaintext).build());
        } else if (onCall != null) {
            settings.setTransportChannelProvider(channel.build());
        }
        return create(settings, platformToken);
    }

    /** GKE's API over HTTP/JSON at a base URL such as {@code http://127.0.0.1:PORT}, without credentials (tests, the simulator). */
    public static GkeClusterProvider restWithoutCredentials(String baseUrl) {
        ClusterManagerSettings.Builder settings = ClusterManagerSettings.newHttpJsonBuilder()
                .setEndpoint(baseUrl)
                .setCredentialsProvider(NoCredentialsProvider.create())
                .setTransportChannelProvider(InstantiatingHttpJsonChannelProvider.newBuilder().setEndpoint(baseUrl).build());
        return create(settings);
    }

    static boolean isLoopback(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        return LOOPBACK.contains(host) || host.startsWith("127.");
    }

    private static GkeClusterProvider create(ClusterManagerSettings.Builder settings) {
        return create(settings, null);
    }

    private static GkeClusterProvider create(ClusterManagerSettings.Builder settings, Supplier<String> platformToken) {
        try {
            return new GkeClusterProvider(ClusterManagerClient.create(settings.build()), platformToken);
        } catch (IOException e) {
            throw new UncheckedIOException("the GKE client could not be created: " + e.getMessage(), e);
        }
    }
}
