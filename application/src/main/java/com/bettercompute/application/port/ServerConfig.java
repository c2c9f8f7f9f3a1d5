package com.bettercompute.application.port;

import com.bettercompute.domain.cluster.ReleaseChannel;

import java.util.List;
import java.util.Map;

/**
 * The Kubernetes versions the provider offers in a location, newest first.
 *
 * @param channels per release channel its default and valid versions (channels the provider does not offer are absent)
 */
public record ServerConfig(String defaultVersion, List<String> validVersions, Map<ReleaseChannel, ChannelVersions> channels) {

    public ServerConfig {
        validVersions = List.copyOf(validVersions);
        channels = Map.copyOf(channels);
    }

    /** One channel's default and valid versions, newest first. */
    public record ChannelVersions(String defaultVersion, List<String> validVersions) {
        public ChannelVersions {
            validVersions = List.copyOf(validVersions);
        }
    }
}
