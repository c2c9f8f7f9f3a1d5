package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.AdmissionKeys;
import com.bettercompute.adapters.http.AdmissionServer;
import com.bettercompute.application.admission.AdmitWorkload;
import com.bettercompute.application.admission.MutateWorkload;
import com.bettercompute.application.admission.ReadMarketFacts;

import java.net.URI;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Launch admission: the webhooks over HTTPS the market-managed clusters call, started before the clusters are told
 * where they are.
 *
 * @param port      the port they answer on
 * @param caPem     the CA (PEM) that signs their serving certificate: the clusters' {@code caBundle}
 * @param endpoints each cluster's webhook URLs, as this server registers them
 */
record AdmissionModule(int port, String caPem, PathTokens endpoints) {

    /**
     * Their keys kept in the data directory (in memory without one), their serving certificate naming this machine's
     * loopback names, the listen host and the host of {@code --admission-url}.
     */
    static AdmissionModule start(ServerConfig config, AdmissionConfig admissionConfig, DatabaseModule data, MarketModule market,
                                 Clock clock, Closer closer) {
        LinkedHashSet<String> hosts = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        if (!config.host().equals("0.0.0.0") && !config.host().equals("::")) {
            hosts.add(config.host());
        }
        if (admissionConfig.url() != null) {
            String host = URI.create(admissionConfig.url()).getHost();
            if (host == null) {
                throw new IllegalArgumentException("option --admission-url must be https://HOST[:PORT], not " + admissionConfig.url());
            }
            hosts.add(host);
        }
        AdmissionKeys keys = AdmissionKeys.open(config.dataDir(), List.copyOf(hosts), clock);
        PathTokens tokens = new PathTokens(keys.pathTokenKey(), keys.caPem());
        AdmissionServer server = new AdmissionServer(
                new AdmitWorkload(new CachedMarketFacts(new ReadMarketFacts(market.markets(), data.db().clusters()),
                        market.markets()::version),
                        admissionConfig.platformUsers()), new MutateWorkload(),
                tokens, keys.sslContext());
        int port = server.start(config.host(), admissionConfig.port());
        closer.add("admission", server::stop);
        String base = admissionConfig.url() != null ? admissionConfig.url() : "https://" + config.urlHost() + ":" + port;
        return new AdmissionModule(port, keys.caPem(), tokens.at(base));
    }

    @Override
    public String toString() {
        return "AdmissionModule[port=" + port + "]";
    }
}
