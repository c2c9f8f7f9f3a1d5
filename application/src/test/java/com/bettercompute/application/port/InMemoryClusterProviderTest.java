package com.bettercompute.application.port;

import com.bettercompute.application.fakes.MutableClock;

import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

class InMemoryClusterProviderTest extends ClusterProviderContract {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private MutableClock clock;
    private InMemoryClusterProvider provider;

    @BeforeEach
    void start() {
        clock = new MutableClock();
        provider = new InMemoryClusterProvider(clock, OPERATION);
    }

    @Override
    protected ClusterProvider provider() {
        return provider;
    }

    @Override
    protected void letOperationsFinish() {
        clock.advance(OPERATION);
    }

    @Override
    protected void createForeignCluster(ClusterLocator at) {
        provider.putForeignCluster(at);
    }

    @Override
    protected void failNextOperation(String message) {
        provider.failNextOperation(message);
    }

    @Override
    protected void refuseIdentityService() {
        provider.refuseIdentityService();
    }
}
