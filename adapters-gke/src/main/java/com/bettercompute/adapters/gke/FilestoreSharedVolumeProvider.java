package com.bettercompute.adapters.gke;

import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.ProviderException.Kind;
import com.bettercompute.application.port.SharedVolumeProvider;
import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.httpjson.InstantiatingHttpJsonChannelProvider;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.filestore.v1.CloudFilestoreManagerClient;
import com.google.cloud.filestore.v1.CloudFilestoreManagerSettings;
import com.google.cloud.filestore.v1.CreateInstanceRequest;
import com.google.cloud.filestore.v1.DeleteInstanceRequest;
import com.google.cloud.filestore.v1.FileShareConfig;
import com.google.cloud.filestore.v1.Instance;
import com.google.cloud.filestore.v1.NetworkConfig;
import com.google.longrunning.Operation;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * {@link SharedVolumeProvider} on Filestore through the official client: one BASIC_HDD instance per volume (the tier
 * whose 1 TiB minimum and 63.9 TiB maximum fit both sizes a volume has; zonal, in the cluster's zone), one NFS v3 file
 * share named {@value #SHARE} of the volume's size, on the project's {@value #NETWORK} network, labelled
 * {@value #VOLUME_LABEL} with the volume's id — the label is what makes an instance ours: one without it is never
 * adopted, changed or deleted.
 *
 * <p>The bytes a share holds are not in Filestore's API: they are Cloud Monitoring's
 * {@code file.googleapis.com/nfs/server/used_bytes}, read over REST with the same credentials. Filestore does not say
 * which NFS clients hold a share either: {@link VolumeObservation#holders()} is always empty here (see
 * docs/decisions/shared-volumes.md for why that is safe).
 */
public final class FilestoreSharedVolumeProvider implements SharedVolumeProvider, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FilestoreSharedVolumeProvider.class);
    static final Instance.Tier TIER = Instance.Tier.BASIC_HDD;
    static final String SHARE = "shared";
    static final String NETWORK = "default";
    static final String VOLUME_LABEL = "better-compute-volume";
    static final String USED_BYTES = "file.googleapis.com/nfs/server/used_bytes";
    private static final String CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
    /** How far back a used-bytes point may be: Filestore reports the metric every minute. */
    private static final Duration METRIC_WINDOW = Duration.ofMinutes(10);

    private final CloudFilestoreManagerClient client;
    private final String monitoringUrl;
    private final GoogleCredentials credentials;
    private final Clock clock;
    /** The client speaks HTTP/JSON (else gRPC): each transport has its own operations client. */
    private final boolean overRest;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    FilestoreSharedVolumeProvider(CloudFilestoreManagerClient client, boolean overRest, String monitoringUrl, GoogleCredentials credentials,
                                  Clock clock) {
        this.overRest = overRest;
        this.client = client;
        this.monitoringUrl = monitoringUrl;
        this.credentials = credentials;
        this.clock = clock;
    }

    /** Real Filestore and Cloud Monitoring with application-default credentials. */
    public static FilestoreSharedVolumeProvider google(Clock clock) {
        try {
            GoogleCredentials credentials = GoogleCredentials.getApplicationDefault().createScoped(CLOUD_PLATFORM);
            return create(CloudFilestoreManagerSettings.newBuilder().setCredentialsProvider(FixedCredentialsProvider.create(credentials)),
                    "https://monitoring.googleapis.com", credentials, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("application-default credentials could not be read for Filestore: " + e.getMessage(), e);
        }
    }

    /** Real Filestore with one account's key file (its path only is in the catalog). */
    public static FilestoreSharedVolumeProvider google(Path credentialsFile, Clock clock) {
        GoogleCredentials credentials;
        try (InputStream in = Files.newInputStream(credentialsFile)) {
            credentials = GoogleCredentials.fromStream(in).createScoped(CLOUD_PLATFORM);
        } catch (IOException e) {
            throw new IllegalArgumentException("the credentials file " + credentialsFile + " cannot be read as Google credentials");
        }
        return create(CloudFilestoreManagerSettings.newBuilder().setCredentialsProvider(FixedCredentialsProvider.create(credentials)),
                "https://monitoring.googleapis.com", credentials, clock);
    }

    /**
     * A Filestore API and its Cloud Monitoring at addresses the server's configuration names (the defaults are
     * {@link #google(Clock)}'s).
     *
     * @param filestoreUrl  {@code http://HOST:PORT} over {@link GkeClusterProviders.Transport#PLAINTEXT}, {@code https://HOST[:PORT]}
     *                      over {@link GkeClusterProviders.Transport#TLS}; spoken to over HTTP/JSON
     * @param monitoringUrl where Cloud Monitoring's {@code timeSeries} are read, under the same rule
     * @param transport     how the calls travel: credentials go over TLS only
     * @param credentials   over TLS, the platform's Google identity (null: application-default credentials); over
     *                      plaintext, none is sent and this must be null
     */
    public record Endpoint(String filestoreUrl, String monitoringUrl, GkeClusterProviders.Transport transport, GoogleCredentials credentials) {
        public Endpoint {
            Objects.requireNonNull(transport, "transport");
            String scheme = transport == GkeClusterProviders.Transport.TLS ? "https" : "http";
            for (String url : new String[] {filestoreUrl, monitoringUrl}) {
                if (url == null || !url.matches(scheme + "://[^/\\s]+")) {
                    throw new IllegalArgumentException("a Filestore endpoint over " + transport + " is " + scheme + "://HOST:PORT, not \""
                            + url + "\"");
                }
            }
            if (transport == GkeClusterProviders.Transport.PLAINTEXT && credentials != null) {
                throw new IllegalArgumentException("no credentials are sent over plaintext");
            }
        }

        /** Names the addresses and the transport, never the credentials (they hold a token). */
        @Override
        public String toString() {
            return "Endpoint[" + filestoreUrl + ", " + monitoringUrl + ", " + transport + (credentials == null ? "" : ", with credentials") + "]";
        }
    }

    /** Filestore and Cloud Monitoring where {@code endpoint} says, over HTTP/JSON. */
    public static FilestoreSharedVolumeProvider at(Endpoint endpoint, Clock clock) {
        GoogleCredentials credentials = null;
        CredentialsProvider credentialsProvider = NoCredentialsProvider.create();
        if (endpoint.transport() == GkeClusterProviders.Transport.TLS) {
            try {
                credentials = endpoint.credentials() != null ? endpoint.credentials()
                        : GoogleCredentials.getApplicationDefault().createScoped(CLOUD_PLATFORM);
            } catch (IOException e) {
                throw new UncheckedIOException("application-default credentials could not be read for Filestore: " + e.getMessage(), e);
            }
            credentialsProvider = FixedCredentialsProvider.create(credentials);
        }
        return create(CloudFilestoreManagerSettings.newHttpJsonBuilder().setEndpoint(endpoint.filestoreUrl())
                .setCredentialsProvider(credentialsProvider)
                .setTransportChannelProvider(InstantiatingHttpJsonChannelProvider.newBuilder().setEndpoint(endpoint.filestoreUrl()).build()),
                endpoint.monitoringUrl(), credentials, clock);
    }

    private static FilestoreSharedVolumeProvider create(CloudFilestoreManagerSettings.Builder settings, String monitoringUrl,
                                                        GoogleCredentials credentials, Clock clock) {
        try {
            CloudFilestoreManagerSettings built = settings.build();
            boolean rest = built.getTransportChannelProvider() instanceof InstantiatingHttpJsonChannelProvider;
            return new FilestoreSharedVolumeProvider(CloudFilestoreManagerClient.create(built), rest, monitoringUrl, credentials, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("the Filestore client could not be created: " + e.getMessage(), e);
        }
    }

    @Override
    public VolumeObservation observe(VolumeLocator at) {
        Instance i;
        try {
            i = client.getInstance(at.toString());
        } catch (RuntimeException e) {
            ProviderException p = GkeClusterProvider.translate(e);
            if (p.kind() == Kind.NOT_FOUND) {
                return VolumeObservation.absent();
            }
            throw p;
        }
        String address = i.getNetworksCount() > 0 && i.getNetworks(0).getIpAddressesCount() > 0 ? i.getNetworks(0).getIpAddresses(0) : null;
        FileShareConfig share = i.getFileSharesCount() > 0 ? i.getFileShares(0) : FileShareConfig.getDefaultInstance();
        return new VolumeObservation(true, i.getLabelsMap().get(VOLUME_LABEL), status(i.getState()), i.getStatusMessage(),
                i.getState() == Instance.State.READY ? address : null, share.getName(), share.getCapacityGb(), List.of());
    }

    private static Status status(Instance.State state) {
        return switch (state) {
            case CREATING -> Status.CREATING;
            case READY -> Status.READY;
            case DELETING -> Status.DELETING;
            case ERROR -> Status.ERROR;
            default -> Status.OTHER;
        };
    }

    @Override
    public String create(VolumeSpec spec) {
        VolumeLocator at = spec.at();
        Instance instance = Instance.newBuilder()
                .setTier(TIER)
                .setDescription("better-compute shared volume " + spec.volumeId())
                .putLabels(VOLUME_LABEL, spec.volumeId())
                .addFileShares(FileShareConfig.newBuilder().setName(SHARE).setCapacityGb(spec.sizeGiB()))
                .addNetworks(NetworkConfig.newBuilder().setNetwork(NETWORK).addModes(NetworkConfig.AddressMode.MODE_IPV4))
                .build();
        try {
            return started(client.createInstanceAsync(CreateInstanceRequest.newBuilder()
                    .setParent("projects/" + at.project() + "/locations/" + at.location())
                    .setInstanceId(at.name()).setInstance(instance).build()));
        } catch (RuntimeException e) {
            ProviderException p = GkeClusterProvider.translate(e);
            // Filestore's REST mapping answers a taken name with 409, which the client reads as ABORTED
            if (p.kind() == Kind.ALREADY_EXISTS || p.kind() == Kind.FAILED_PRECONDITION) {
                VolumeObservation there = observe(at);
                if (there.exists()) {
                    if (spec.volumeId().equals(there.volumeId())) {
                        return null;
                    }
                    throw new ProviderException(Kind.FOREIGN, "A Filestore instance " + at.name() + " exists in project " + at.project()
                            + " without the label " + VOLUME_LABEL + "=" + spec.volumeId() + "; it is left alone.");
                }
            }
            throw p;
        }
    }

    @Override
    public String delete(VolumeLocator at, String volumeId) {
        VolumeObservation there = observe(at);
        if (!there.exists() || there.status() == Status.DELETING) {
            return null;
        }
        if (!volumeId.equals(there.volumeId())) {
            throw new ProviderException(Kind.FOREIGN, "The Filestore instance " + at.name() + " does not carry the label " + VOLUME_LABEL
                    + "=" + volumeId + "; it is left alone.");
        }
        try {
            return started(client.deleteInstanceAsync(DeleteInstanceRequest.newBuilder().setName(at.toString()).build()));
        } catch (RuntimeException e) {
            ProviderException p = GkeClusterProvider.translate(e);
            if (p.kind() == Kind.NOT_FOUND) {
                return null;
            }
            throw p;
        }
    }

    /** The name of the operation a call started: waits for the call's answer only, never for the operation. */
    private static String started(com.google.api.gax.longrunning.OperationFuture<?, ?> future) {
        try {
            return future.getName();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException(Kind.UNAVAILABLE, "interrupted while Filestore answered");
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new ProviderException(Kind.INTERNAL, String.valueOf(e.getCause()));
        }
    }

    @Override
    public OperationStatus operation(VolumeLocator at, String name) {
        if (name == null) {
            return OperationStatus.SUCCEEDED;
        }
        Operation op;
        try {
            // each transport has its own operations client; the other one is there but cannot call
            op = overRest ? client.getHttpJsonOperationsClient().getOperation(name)
                    : client.getOperationsClient().getOperation(name);
        } catch (RuntimeException e) {
            ProviderException p = GkeClusterProvider.translate(e);
            if (p.kind() == Kind.NOT_FOUND) {
                return OperationStatus.SUCCEEDED;
            }
            throw p;
        }
        if (!op.getDone()) {
            return OperationStatus.RUNNING;
        }
        return op.hasError() ? OperationStatus.failed(op.getError().getMessage()) : OperationStatus.SUCCEEDED;
    }

    @Override
    public OptionalLong usedBytes(VolumeLocator at) {
        if (!observe(at).exists()) {
            throw new ProviderException(Kind.NOT_FOUND, "The Filestore instance " + at + " was not found.");
        }
        Instant now = clock.instant();
        String filter = "metric.type=\"" + USED_BYTES + "\" AND resource.labels.instance_name=\"" + at.name() + "\"";
        String url = monitoringUrl + "/v3/projects/" + at.project() + "/timeSeries?filter=" + URLEncoder.encode(filter, StandardCharsets.UTF_8)
                + "&interval.startTime=" + now.minus(METRIC_WINDOW) + "&interval.endTime=" + now;
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
            if (credentials != null) {
                credentials.refreshIfExpired();
                request.header("Authorization", "Bearer " + credentials.getAccessToken().getTokenValue());
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                LOG.warn("filestore: Cloud Monitoring answered {} for {}", response.statusCode(), at);
                return OptionalLong.empty();
            }
            return latestPoint(response.body());
        } catch (IOException e) {
            LOG.warn("filestore: Cloud Monitoring could not be read for {}: {}", at, e.getMessage());
            return OptionalLong.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalLong.empty();
        }
    }

    /** The newest point of the first series (Monitoring lists points newest first); empty when there is none yet. */
    static OptionalLong latestPoint(String body) throws IOException {
        Struct.Builder doc = Struct.newBuilder();
        JsonFormat.parser().ignoringUnknownFields().merge(body, doc);
        Value series = doc.getFieldsMap().get("timeSeries");
        if (series == null || series.getListValue().getValuesCount() == 0) {
            return OptionalLong.empty();
        }
        Value points = series.getListValue().getValues(0).getStructValue().getFieldsMap().get("points");
        if (points == null || points.getListValue().getValuesCount() == 0) {
            return OptionalLong.empty();
        }
        Value value = points.getListValue().getValues(0).getStructValue().getFieldsMap().get("value");
        Value int64 = value == null ? null : value.getStructValue().getFieldsMap().get("int64Value");
        return int64 == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(int64.getStringValue()));
    }

    @Override
    public void close() {
        client.close();
    }
}
