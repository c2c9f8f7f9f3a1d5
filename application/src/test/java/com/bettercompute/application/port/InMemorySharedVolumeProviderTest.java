package com.bettercompute.application.port;

import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeLocator;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;

class InMemorySharedVolumeProviderTest extends SharedVolumeProviderContract {
    private static final Duration OPERATION = Duration.ofSeconds(20);
    private MutableClock clock;
    private InMemorySharedVolumeProvider provider;

    @BeforeEach
    void start() {
        clock = new MutableClock();
        provider = new InMemorySharedVolumeProvider(clock, OPERATION);
    }

    @Override
    protected SharedVolumeProvider provider() {
        return provider;
    }

    @Override
    protected void letOperationsFinish() {
        clock.advance(OPERATION);
    }

    @Override
    protected void createForeign(VolumeLocator at) {
        provider.putForeign(at);
    }

    @Override
    protected void failNextOperation(String message) {
        provider.failNextOperation(message);
    }

    @Override
    protected void writeBytes(VolumeLocator at, long bytes) {
        provider.holdBytes(at, bytes);
    }
}
