package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.ApiServer;
import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.adapters.http.RequestLimits;
import com.bettercompute.adapters.http.SignInUseCases;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.adapters.http.console.Console;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP API, the console and the operator's routes on one port, started last: once it listens, every feature it
 * serves is there. Its stop is the first: readiness turns 503, new connections are refused and the requests under
 * way finish, before anything they use is closed.
 *
 * @param port the port it listens on
 */
record ApiModule(int port) {

    /** Listens; {@code issuer} becomes the API's own base URL unless {@code --public-url} set it. */
    static ApiModule start(ServerConfig config, ClustersModule clusters, MarketUseCases market, SignInUseCases signIn,
                           VolumeUseCases volumes, ListLoadBalancers loadBalancers, Console console, OperationsModule operations,
                           AtomicReference<String> issuer, Clock clock, Closer closer) {
        ApiServer api = new ApiServer(clusters.useCases(), clusters.nodePools(), new RequestLimits(config.requestLimits(), clock),
                operations.operations(), market, signIn, console, volumes, loadBalancers);
        int port = api.start(config.host(), config.port());
        closer.add("api", () -> {
            operations.readiness().stopping();
            api.stop();
        });
        issuer.compareAndSet(null, "http://" + config.urlHost() + ":" + port);
        return new ApiModule(port);
    }
}
