package com.bettercompute.adapters.http.archfixture;

/** Breaks "nothing outside bootstrap sleeps" on purpose, for ArchitectureTest. Test code only. */
public class Sleeps {
    void pause() throws InterruptedException {
        Thread.sleep(1);
    }
}
