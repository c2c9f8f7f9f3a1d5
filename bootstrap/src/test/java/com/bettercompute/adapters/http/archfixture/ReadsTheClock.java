package com.bettercompute.adapters.http.archfixture;

/** Breaks "nothing outside bootstrap reads the wall clock" on purpose, for ArchitectureTest. Test code only. */
public class ReadsTheClock {
    java.time.Instant now() {
        return java.time.Instant.now();
    }
}
