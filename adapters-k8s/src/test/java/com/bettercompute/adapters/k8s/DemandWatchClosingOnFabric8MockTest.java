package com.bettercompute.adapters.k8s;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.bettercompute.application.port.MarketClusterClient.DemandWatch;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A demand watch closed while its informers' first lists are still under way — the server stopping just as
 * the market starts watching a cluster — ends quietly: fabric8 logs a list that fails because its client was
 * closed under it as an ERROR ("listSyncAndWatch failed for …, will stop"), which an operator would read as a
 * fault on every such stop.
 */
class DemandWatchClosingOnFabric8MockTest {
    CrudMockCluster cluster;
    Fabric8MarketClusterClient client;
    final Errors errors = new Errors();
    final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    /** Every ERROR logged while the test runs, whoever logs it. */
    static final class Errors extends AppenderBase<ILoggingEvent> {
        final Queue<String> seen = new ConcurrentLinkedQueue<>();
        final Semaphore any = new Semaphore(0);

        @Override
        protected void append(ILoggingEvent e) {
            if (e.getLevel().isGreaterOrEqual(Level.ERROR)) {
                seen.add(e.getLoggerName() + " - " + e.getFormattedMessage());
                any.release();
            }
        }
    }

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8MarketClusterClient(5000, 60_000);
        client.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        errors.start();
        root.addAppender(errors);
    }

    @AfterEach
    void stop() {
        root.detachAppender(errors);
        client.close();
        cluster.close();
    }

    @Test
    void a_watch_closed_while_its_first_lists_are_under_way_logs_no_error() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            DemandWatch watch = client.watchDemand(cluster.connection(), () -> { });
            watch.close();
        }

        // a list failed by the closed client is logged a moment later, on the client's own threads
        assertThat(errors.any.tryAcquire(2, TimeUnit.SECONDS)).as("ERRORs logged: %s", errors.seen).isFalse();
    }
}
