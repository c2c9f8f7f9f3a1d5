package com.bettercompute.application.provider;

import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

class InMemoryClusterProviderTest extends ClusterProviderContract {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private SteppingClock clock;
    private InMemoryClusterProvider provider;

    @BeforeEach
    void start() {
        clock = new SteppingClock();
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
}
