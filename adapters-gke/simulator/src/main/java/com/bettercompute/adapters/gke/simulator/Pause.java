package com.bettercompute.adapters.gke.simulator;

import java.time.Duration;

/**
 * Waits, for the "add latency" fault. The simulator never sleeps itself (nothing outside bootstrap
 * may): the process that runs it gives it a way to wait. {@link #NONE} ignores latency.
 */
@FunctionalInterface
public interface Pause {
    Pause NONE = duration -> { };

    void pause(Duration duration);
}
