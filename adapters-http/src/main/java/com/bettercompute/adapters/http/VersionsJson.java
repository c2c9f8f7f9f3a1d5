package com.bettercompute.adapters.http;

import com.bettercompute.domain.cluster.ReleaseChannel;
import com.bettercompute.application.provider.ServerConfig;

import java.util.LinkedHashMap;
import java.util.Map;

/** The answer of {@code versions}: {@code {defaultVersion, validVersions, channels: {rapid: {…}, …}}}. */
final class VersionsJson {
    private VersionsJson() {}

    static Map<String, Object> of(ServerConfig config) {
        Map<String, Object> channels = new LinkedHashMap<>();
        for (ReleaseChannel channel : ReleaseChannel.values()) {
            ServerConfig.ChannelVersions v = config.channels().get(channel);
            if (v != null) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("defaultVersion", v.defaultVersion());
                c.put("validVersions", v.validVersions());
                channels.put(channel.name().toLowerCase(), c);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("defaultVersion", config.defaultVersion());
        m.put("validVersions", config.validVersions());
        m.put("channels", channels);
        return m;
    }
}
