package com.bettercompute.adapters.gke.simulator;

import com.google.container.v1.ReleaseChannel.Channel;
import com.google.container.v1.ServerConfig;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Kubernetes versions the simulator offers, the same in every location, and GKE's rules for
 * choosing one: aliases ({@code latest}, {@code -}, a minor {@code 1.33}, a patch {@code 1.33.5},
 * a full {@code 1.33.5-gke.1080000}), no downgrades, one minor at a time. Not thread-safe: the core
 * calls it under its lock.
 */
final class Versions {
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?(?:-gke\\.(\\d+))?");

    /** Every version offered, newest first. */
    static final List<String> ALL = List.of(
            "1.34.1-gke.1829001",
            "1.33.5-gke.1162000",
            "1.33.5-gke.1080000",
            "1.33.4-gke.1245000",
            "1.32.9-gke.1108000",
            "1.31.13-gke.1023000");

    private static final Map<Channel, List<String>> CHANNELS = new EnumMap<>(Map.of(
            Channel.RAPID, List.of("1.34.1-gke.1829001", "1.33.5-gke.1162000"),
            Channel.REGULAR, List.of("1.33.5-gke.1162000", "1.33.5-gke.1080000", "1.33.4-gke.1245000", "1.32.9-gke.1108000"),
            Channel.STABLE, List.of("1.33.4-gke.1245000", "1.32.9-gke.1108000", "1.31.13-gke.1023000"),
            Channel.EXTENDED, List.of("1.33.4-gke.1245000", "1.32.9-gke.1108000", "1.31.13-gke.1023000")));

    private static final Map<Channel, String> CHANNEL_DEFAULTS = new EnumMap<>(Map.of(
            Channel.RAPID, "1.34.1-gke.1829001",
            Channel.REGULAR, "1.33.5-gke.1080000",
            Channel.STABLE, "1.32.9-gke.1108000",
            Channel.EXTENDED, "1.31.13-gke.1023000"));

    private final Set<String> refused = new LinkedHashSet<>();

    void refuse(String version) {
        refused.add(version);
    }

    void clearRefused() {
        refused.clear();
    }

    Set<String> refused() {
        return Set.copyOf(refused);
    }

    List<String> valid() {
        return ALL.stream().filter(v -> !refused.contains(v)).toList();
    }

    List<String> valid(Channel channel) {
        List<String> list = CHANNELS.get(channel);
        return list == null ? valid() : list.stream().filter(v -> !refused.contains(v)).toList();
    }

    /** The default of a channel (or, for no channel, REGULAR's), skipping a refused default for the channel's newest. */
    String defaultVersion(Channel channel) {
        Channel c = CHANNELS.containsKey(channel) ? channel : Channel.REGULAR;
        String preferred = CHANNEL_DEFAULTS.get(c);
        if (!refused.contains(preferred)) {
            return preferred;
        }
        List<String> valid = valid(c);
        if (valid.isEmpty()) {
            throw Status.FAILED_PRECONDITION.withDescription("No version is available in channel " + c + ".").asRuntimeException();
        }
        return valid.get(0);
    }

    ServerConfig serverConfig() {
        ServerConfig.Builder config = ServerConfig.newBuilder()
                .setDefaultClusterVersion(defaultVersion(Channel.REGULAR))
                .addAllValidMasterVersions(valid())
                .addAllValidNodeVersions(valid())
                .setDefaultImageType("COS_CONTAINERD")
                .addAllValidImageTypes(List.of("COS_CONTAINERD", "UBUNTU_CONTAINERD"));
        for (Channel channel : CHANNELS.keySet()) {
            List<String> valid = valid(channel);
            if (valid.isEmpty()) {
                continue;
            }
            config.addChannels(ServerConfig.ReleaseChannelConfig.newBuilder()
                    .setChannel(channel)
                    .setDefaultVersion(defaultVersion(channel))
                    .addAllValidVersions(valid)
                    .setUpgradeTargetVersion(valid.get(0)));
        }
        return config.build();
    }

    /**
     * Resolves a requested control-plane version among the channel's valid versions (all valid
     * versions when the cluster is in no channel), as GKE does; refuses what is not offered.
     */
    String resolve(String requested, Channel channel) {
        boolean inChannel = CHANNELS.containsKey(channel);
        List<String> candidates = inChannel ? valid(channel) : valid();
        if (requested == null || requested.isEmpty() || requested.equals("-")) {
            return defaultVersion(channel);
        }
        if (requested.equals("latest")) {
            if (candidates.isEmpty()) {
                throw unsupported(requested, channel);
            }
            return candidates.get(0);
        }
        Matcher m = VERSION.matcher(requested);
        if (!m.matches()) {
            throw Status.INVALID_ARGUMENT.withDescription("Version \"" + requested + "\" is not a valid version.").asRuntimeException();
        }
        for (String candidate : candidates) {
            if (candidate.equals(requested)
                    || (m.group(3) == null && candidate.startsWith(requested + "."))
                    || (m.group(3) != null && m.group(4) == null && candidate.startsWith(requested + "-"))) {
                return candidate;
            }
        }
        throw unsupported(requested, channel);
    }

    private static RuntimeException unsupported(String requested, Channel channel) {
        String where = CHANNELS.containsKey(channel) ? " in the " + channel + " release channel" : "";
        return Status.INVALID_ARGUMENT.withDescription("Master version \"" + requested + "\" is unsupported" + where + ".").asRuntimeException();
    }

    /** Refuses a downgrade and a jump of more than one minor version, as GKE does. */
    static void checkUpgrade(String from, String to) {
        if (compare(to, from) < 0) {
            throw Status.INVALID_ARGUMENT.withDescription("Master cannot be downgraded from \"" + from + "\" to \"" + to + "\".").asRuntimeException();
        }
        if (minor(to) - minor(from) > 1) {
            throw Status.INVALID_ARGUMENT.withDescription("Master cannot be upgraded from \"" + from + "\" to \"" + to
                    + "\": the control plane moves one minor version at a time.").asRuntimeException();
        }
    }

    static int minor(String version) {
        Matcher m = VERSION.matcher(version);
        return m.matches() ? Integer.parseInt(m.group(2)) : 0;
    }

    static int compare(String a, String b) {
        return COMPARATOR.compare(a, b);
    }

    static final Comparator<String> COMPARATOR = (a, b) -> {
        long[] x = parts(a);
        long[] y = parts(b);
        for (int i = 0; i < x.length; i++) {
            int c = Long.compare(x[i], y[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    };

    private static long[] parts(String version) {
        Matcher m = VERSION.matcher(version);
        long[] parts = new long[4];
        if (m.matches()) {
            for (int i = 0; i < 4; i++) {
                parts[i] = m.group(i + 1) == null ? 0 : Long.parseLong(m.group(i + 1));
            }
        }
        return parts;
    }

    /** The oldest of some versions. */
    static String oldest(List<String> versions) {
        List<String> sorted = new ArrayList<>(versions);
        sorted.sort(COMPARATOR);
        return sorted.isEmpty() ? null : sorted.get(0);
    }
}
